// run_python, for real: python3 in the sandbox of python-sandbox.ts (timeout, output cap, memory
// limit, scrubbed environment, fresh temporary working directory); returns the tail of its output.
import { runSandboxed, type SandboxLimits } from './python-sandbox.ts';
import type { Tool } from '../contracts/tool.ts';
import { findPython3 } from './python-path.ts';

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
/** The real interpreter behind `python3` (python-path.ts), found once; `python3` itself when none answered (its own error at each call). */
export function pythonExecutable(): string {
  resolvedPython ??= findPython3().interpreter ?? 'python3';
  return resolvedPython;
}

export function runPython(code: string, options: RunPythonOptions, signal?: AbortSignal): Promise<string> {
  return runSandboxed(options.python ?? pythonExecutable(), code, options, signal);
}
