// Driving `bench` in tests: as a real child process (exit codes, signals, stderr) or in-process
// through runCli (the same code, without paying a Node + tsx start per case).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { vi } from 'vitest';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const fixture = (name: string) => path.join(ROOT, 'test', 'fixtures', name);

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Spawned {
  child: ChildProcess;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Everything written to stdout so far. */
  stdout(): string;
  done: Promise<Finished>;
}

export function spawnBench(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  o: { detached?: boolean } = {},
): Spawned {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'bench.js'), ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: o.detached ?? false,
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<Finished>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, stderr: () => stderr, stdout: () => stdout, done };
}

export const bench = (args: string[], env?: NodeJS.ProcessEnv) => spawnBench(args, env).done;

/**
 * The base URL a `bench serve` child prints once it listens (`http://127.0.0.1:PORT/v1`): resolves when
 * that line arrives, and fails if the process ends first. No deadline of its own: a loaded machine is slow, not wrong.
 */
export function servedUrl(s: Spawned): Promise<string> {
  const found = () => /(http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(s.stdout())?.[1];
  return new Promise((resolve, reject) => {
    const look = () => {
      const url = found();
      if (!url) return;
      s.child.stdout!.off('data', look);
      resolve(url);
    };
    s.child.stdout!.on('data', look);
    look();
    void s.done.then((end) =>
      reject(new Error(`bench serve ended (code ${end.code}) before it printed its URL: ${end.stderr}`)),
    );
  });
}

/**
 * runCli in this process, with stdout and stderr captured. The CLI (all of src/) is imported on the first
 * call: a file that only starts `bench` as a child does not pay for importing it.
 */
export async function benchInProcess(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const { runCli } = await import('../../src/cli/program.ts');
  let stdout = '';
  let stderr = '';
  const text = (a: unknown[]) => `${a.map(String).join(' ')}\n`;
  const log = vi.spyOn(console, 'log').mockImplementation((...a) => void (stdout += text(a)));
  const err = vi.spyOn(console, 'error').mockImplementation((...a) => void (stderr += text(a)));
  const write = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  const writeOut = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  try {
    const code = await runCli(args);
    return { code, stdout, stderr };
  } finally {
    log.mockRestore();
    err.mockRestore();
    write.mockRestore();
    writeOut.mockRestore();
  }
}
