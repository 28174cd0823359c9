// The process side of run_python: a fresh temp working directory, an allow-listed environment, an
// address-space limit, a timeout and an output cap. Under bubblewrap (containment.ts) it also has
// no network, a read-only file system and its own PID namespace. Either way the timeout bounds the
// call whatever the code does: everything it started is killed, and the pipes are let go of.
// See README "The Python sandbox" for what is and is not contained.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { detectContainment, inBwrap, type Containment } from './containment.ts';
import { scrubbedEnv } from './scrub-env.ts';
import { killTagged } from './tagged-processes.ts';

export interface SandboxLimits {
  timeoutS: number;
  /** Characters of output kept (the tail) and returned. */
  maxOutputChars: number;
  /** Address-space limit (ulimit -v) of the interpreter. */
  maxMemoryMb: number;
  /** Variables of our environment the tool declares it needs (scenario `env:`), besides the allow-list. */
  env?: readonly string[];
  /** Default: bubblewrap where it works (detectContainment). */
  containment?: Containment;
}

/** Bytes read from a program before it is killed: printing gigabytes costs neither memory nor the whole timeout. */
export const MAX_OUTPUT_BYTES = 8 * 1024 * 1024;

/** How long the pipes may stay open once the program is over or killed: a process that escaped the kill and still holds them is not waited for. */
const PIPE_GRACE_MS = 500;

// `ulimit -v` through sh (POSIX, always present) rather than prlimit (util-linux, not everywhere);
// `exec` keeps one process, so the group leader is the interpreter itself.
const LIMITED = 'ulimit -v "$LOOPBENCH_ULIMIT_KB" && exec "$0" "$@"';

/** Every process the program starts inherits this variable (unless it clears it): how escaped ones are found. */
const TAG = 'LOOPBENCH_SANDBOX_TAG';

type Ending = 'exit' | 'timeout' | 'overflow' | 'interrupted';

export async function runSandboxed(
  python: string,
  code: string,
  limits: SandboxLimits,
  signal?: AbortSignal,
): Promise<string> {
  if (signal?.aborted) return 'Error: interrupted before run_python started';
  const containment = limits.containment ?? detectContainment();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-py-'));
  const tag = randomBytes(12).toString('hex');
  const argv = ['sh', '-c', LIMITED, python, '-c', code];
  const [command, args] = containment === 'bwrap' ? inBwrap(dir, argv) : [argv[0]!, argv.slice(1)];
  try {
    return await new Promise<string>((resolve) => {
      const child = spawn(command, args, {
        cwd: dir,
        env: {
          ...scrubbedEnv(process.env, limits.env),
          TMPDIR: dir,
          LOOPBENCH_ULIMIT_KB: String(Math.round(limits.maxMemoryMb * 1024)),
          [TAG]: tag,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
        // Its own process group, so one kill reaches every process it forked.
        detached: true,
      });
      let ending: Ending = 'exit';
      let exited: { code: number | null; signal: NodeJS.Signals | null } | null = null;
      let settled = false;
      const killAll = (why?: Ending) => {
        if (why && ending === 'exit') ending = why;
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          /* the group is already gone */
        }
        // Under bubblewrap the PID namespace ends with its first process; outside it, hunt the tag.
        if (containment !== 'bwrap') killTagged(TAG, tag);
        // Whatever still holds the pipes (a process that also cleared its environment) is not waited for.
        setTimeout(() => finish(exited?.code ?? null, exited?.signal ?? 'SIGKILL'), PIPE_GRACE_MS).unref();
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
          if (read > MAX_OUTPUT_BYTES) killAll('overflow');
        });
      }
      const timer = setTimeout(() => killAll('timeout'), limits.timeoutS * 1000);
      const onAbort = () => killAll('interrupted');
      signal?.addEventListener('abort', onAbort, { once: true });
      const finish = (exitCode: number | null, killedBy: NodeJS.Signals | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        child.stdout.destroy();
        child.stderr.destroy();
        resolve(
          describe(
            ending,
            exitCode,
            killedBy,
            { stdout: raw.stdout.toString('utf8'), stderr: raw.stderr.toString('utf8') },
            limits,
          ),
        );
      };
      // When the interpreter ends, whatever it left running ends too (this also closes pipes a
      // background child still holds, so 'close' comes at once).
      child.on('exit', (c, s) => {
        exited = { code: c, signal: s };
        killAll();
      });
      child.on('error', (e) => {
        settled = true;
        clearTimeout(timer);
        resolve(`Error: could not start ${command}: ${e.message}`);
      });
      child.on('close', finish);
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function describe(
  ending: Ending,
  exitCode: number | null,
  killedBy: NodeJS.Signals | null,
  out: { stdout: string; stderr: string },
  limits: SandboxLimits,
): string {
  const keep = limits.maxOutputChars;
  const tail = (s: string) => (s ? `\n${s.slice(-keep)}` : '');
  if (ending === 'timeout') return `Error: timed out after ${limits.timeoutS} s; process killed${tail(out.stdout)}`;
  if (ending === 'overflow')
    return `Error: output exceeded ${MAX_OUTPUT_BYTES / 1024 / 1024} MiB; process killed${tail(out.stdout)}`;
  if (ending === 'interrupted') return 'Error: interrupted; process killed';
  const text = exitCode === 0 || !out.stderr ? out.stdout : `${out.stdout}${out.stderr}`;
  if (text) return text.slice(-keep);
  if (exitCode === 0) return '(no output)';
  return exitCode === null ? `Error: killed by ${killedBy}` : `Error: exit code ${exitCode}`;
}
