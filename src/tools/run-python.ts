// run_python, for real: python3 in a subprocess with a timeout, a scrubbed environment and a fresh
// temporary working directory; returns the last characters of its output.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Tool } from './tool.ts';
import { scrubbedEnv } from './scrub-env.ts';

export interface RunPythonOptions {
  timeoutS: number;
  maxOutputChars: number;
  /** Simulated duration on a virtual clock. */
  virtualMs: number;
  python?: string;
}

export const RUN_PYTHON_DEFAULTS: RunPythonOptions = { timeoutS: 10, maxOutputChars: 2000, virtualMs: 500 };

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
/** The real interpreter behind `python3` (version-manager shims cost ~0.3 s a start). */
export function pythonExecutable(): string {
  if (resolvedPython === undefined) {
    try {
      resolvedPython = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8', env: scrubbedEnv(process.env) }).trim() || 'python3';
    } catch {
      resolvedPython = 'python3';
    }
  }
  return resolvedPython;
}

export async function runPython(code: string, options: RunPythonOptions, signal?: AbortSignal): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-py-'));
  try {
    return await new Promise<string>((resolve) => {
      const child = spawn(options.python ?? pythonExecutable(), ['-c', code], {
        cwd: dir,
        env: scrubbedEnv(process.env),
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      // Keep only the tail while reading, so a program printing gigabytes cannot exhaust memory.
      const keep = options.maxOutputChars;
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout = (stdout + d).slice(-keep)));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-keep)));
      let timedOut = false;
      const killGroup = () => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          /* already gone */
        }
      };
      const timer = setTimeout(() => {
        timedOut = true;
        killGroup();
      }, options.timeoutS * 1000);
      const onAbort = () => killGroup();
      signal?.addEventListener('abort', onAbort, { once: true });
      child.on('error', (e) => {
        clearTimeout(timer);
        resolve(`Error: could not start python3: ${e.message}`);
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (timedOut) return resolve(`Error: timed out after ${options.timeoutS} s${stdout ? `\n${stdout.slice(-keep)}` : ''}`);
        const out = code === 0 || !stderr ? stdout : `${stdout}${stderr}`;
        resolve(out.slice(-keep) || (code === 0 ? '(no output)' : `Error: exit code ${code}`));
      });
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
