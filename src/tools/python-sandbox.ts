// The process side of run_python: a fresh temp working directory, a scrubbed environment, an
// address-space limit, a timeout and an output cap, and the whole process group killed at the end.
// It contains accidents (runaway loops, forks, huge prints, memory hogs), not hostile code: see
// README "The Python sandbox" for what it does not prevent.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { scrubbedEnv } from './scrub-env.ts';

export interface SandboxLimits {
  timeoutS: number;
  /** Characters of output kept (the tail) and returned. */
  maxOutputChars: number;
  /** Address-space limit (ulimit -v) of the interpreter. */
  maxMemoryMb: number;
}

/** Bytes read from a program before it is killed: printing gigabytes costs neither memory nor the whole timeout. */
export const MAX_OUTPUT_BYTES = 8 * 1024 * 1024;

// `ulimit -v` through sh (POSIX, always present) rather than prlimit (util-linux, not everywhere);
// `exec` keeps one process, so the group leader is the interpreter itself.
const LIMITED = 'ulimit -v "$LOOPBENCH_ULIMIT_KB" && exec "$0" "$@"';

type Ending = 'exit' | 'timeout' | 'overflow' | 'interrupted';

export async function runSandboxed(python: string, code: string, limits: SandboxLimits, signal?: AbortSignal): Promise<string> {
  if (signal?.aborted) return 'Error: interrupted before run_python started';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-py-'));
  try {
    return await new Promise<string>((resolve) => {
      const child = spawn('sh', ['-c', LIMITED, python, '-c', code], {
        cwd: dir,
        env: { ...scrubbedEnv(process.env), TMPDIR: dir, LOOPBENCH_ULIMIT_KB: String(Math.round(limits.maxMemoryMb * 1024)) },
        stdio: ['ignore', 'pipe', 'pipe'],
        // Its own process group, so one kill reaches every process it forked.
        detached: true,
      });
      let ending: Ending = 'exit';
      const killGroup = (why?: Ending) => {
        if (why && ending === 'exit') ending = why;
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          /* the group is already gone */
        }
      };
      // Keep only the tail while reading (4 bytes per character covers any UTF-8); stop the
      // program once it has printed too much.
      const keepBytes = limits.maxOutputChars * 4;
      let read = 0;
      const raw = { stdout: Buffer.alloc(0), stderr: Buffer.alloc(0) };
      for (const name of ['stdout', 'stderr'] as const) {
        child[name].on('data', (d: Buffer) => {
          read += d.length;
          const both = Buffer.concat([raw[name], d]);
          raw[name] = both.length > keepBytes ? both.subarray(both.length - keepBytes) : both;
          if (read > MAX_OUTPUT_BYTES) killGroup('overflow');
        });
      }
      const timer = setTimeout(() => killGroup('timeout'), limits.timeoutS * 1000);
      const onAbort = () => killGroup('interrupted');
      signal?.addEventListener('abort', onAbort, { once: true });
      // When the interpreter ends, whatever it left running in its group ends too (this also
      // closes pipes a background child still holds, so 'close' comes at once).
      child.on('exit', () => killGroup());
      child.on('error', (e) => {
        clearTimeout(timer);
        resolve(`Error: could not start python3: ${e.message}`);
      });
      child.on('close', (exitCode, killedBy) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(describe(ending, exitCode, killedBy, { stdout: raw.stdout.toString('utf8'), stderr: raw.stderr.toString('utf8') }, limits));
      });
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function describe(ending: Ending, exitCode: number | null, killedBy: NodeJS.Signals | null, out: { stdout: string; stderr: string }, limits: SandboxLimits): string {
  const keep = limits.maxOutputChars;
  const tail = (s: string) => (s ? `\n${s.slice(-keep)}` : '');
  if (ending === 'timeout') return `Error: timed out after ${limits.timeoutS} s; process killed${tail(out.stdout)}`;
  if (ending === 'overflow') return `Error: output exceeded ${MAX_OUTPUT_BYTES / 1024 / 1024} MiB; process killed${tail(out.stdout)}`;
  if (ending === 'interrupted') return 'Error: interrupted; process killed';
  const text = exitCode === 0 || !out.stderr ? out.stdout : `${out.stdout}${out.stderr}`;
  if (text) return text.slice(-keep);
  if (exitCode === 0) return '(no output)';
  return exitCode === null ? `Error: killed by ${killedBy}` : `Error: exit code ${exitCode}`;
}
