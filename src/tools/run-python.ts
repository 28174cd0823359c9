// run_python, for real: python3 in the sandbox of python-sandbox.ts (timeout, output cap, memory
// limit, scrubbed environment, fresh temporary working directory); returns the tail of its output.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { runSandboxed, type SandboxLimits } from './python-sandbox.ts';
import type { Tool } from '../contracts/tool.ts';
import { scrubbedEnv } from './scrub-env.ts';

export interface RunPythonOptions extends SandboxLimits {
  /** Simulated duration on a virtual clock. */
  virtualMs: number;
  python?: string;
}

export const RUN_PYTHON_DEFAULTS: RunPythonOptions = {
  timeoutS: 10,
  maxOutputChars: 2000,
  maxMemoryMb: 1024,
  virtualMs: 500,
};

export function runPythonTool(options: RunPythonOptions = RUN_PYTHON_DEFAULTS): Tool {
  return {
    spec: {
      type: 'function',
      function: {
        name: 'run_python',
        description: `Run Python 3 code in a subprocess (${options.timeoutS} s timeout) and return the last ${options.maxOutputChars} characters of its output.`,
        parameters: {
          type: 'object',
          properties: { code: { type: 'string', description: 'Python source code; print what you need to see.' } },
          required: ['code'],
        },
      },
    },
    virtualMs: options.virtualMs,
    run: async (args, signal) => {
      if (typeof args.code !== 'string') return 'Error: run_python needs a string argument "code".';
      return runPython(args.code, options, signal);
    },
  };
}

let resolvedPython: string | undefined;
/**
 * The real interpreter behind `python3`: the file PATH names when it is a program, as it usually is
 * (found without starting it); when it is a script, a version manager's shim (~0.3 s a start), the
 * interpreter the shim starts, asked once.
 */
export function pythonExecutable(): string {
  if (resolvedPython === undefined) {
    const found = onPath('python3');
    if (found && !isScript(found)) resolvedPython = found;
    else
      try {
        resolvedPython =
          execFileSync(found ?? 'python3', ['-c', 'import sys; print(sys.executable)'], {
            encoding: 'utf8',
            env: scrubbedEnv(process.env),
          }).trim() || 'python3';
      } catch {
        resolvedPython = 'python3';
      }
  }
  return resolvedPython;
}

/** The first executable file named `name` in PATH's directories, or null. */
function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    // Absolute: run_python starts it from its own working directory.
    const file = path.resolve(dir || '.', name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      if (fs.statSync(file).isFile()) return file;
    } catch {
      /* not in this directory */
    }
  }
  return null;
}

/** Whether `file` starts with `#!` (a script run by the interpreter it names). */
function isScript(file: string): boolean {
  const head = Buffer.alloc(2);
  try {
    const fd = fs.openSync(file, 'r');
    try {
      fs.readSync(fd, head, 0, 2, 0);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return true; // unreadable: let the interpreter say where it is
  }
  return head.toString('latin1') === '#!';
}

export function runPython(code: string, options: RunPythonOptions, signal?: AbortSignal): Promise<string> {
  return runSandboxed(options.python ?? pythonExecutable(), code, options, signal);
}
