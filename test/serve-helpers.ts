// Helpers for tests that need `bench serve`: an in-process server on 127.0.0.1, port 0, stopped by the test.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { startServe, type RunningServer, type ServeOptions } from '../src/serve/server.ts';

export const FAKE_KEY = 'sk-test-SECRET123';

export function serve(o: Partial<ServeOptions> = {}): Promise<RunningServer> {
  return startServe({
    host: '127.0.0.1',
    port: 0,
    latencyMs: 0,
    errorRate: 0,
    faults: [],
    retryAfterS: 1,
    promptCache: false,
    ...o,
  });
}

/** Environment for an `openai:` run against a server, with the fake key. */
export const envFor = (server: RunningServer) => ({ OPENAI_API_KEY: FAKE_KEY, OPENAI_BASE_URL: server.url });

/** Draws that script a fault per request: each entry is the fault's index in the list, or null for a clean answer. */
export function scripted(plan: Array<number | null>, faults: number): () => number {
  const draws: number[] = [];
  for (const p of plan) draws.push(...(p === null ? [0.999] : [0, (p + 0.5) / faults]));
  let i = 0;
  return () => (i < draws.length ? draws[i++]! : 0.999);
}

const ROOT = path.resolve(import.meta.dirname, '..');

/** The CLI in a child process, asynchronously (so a server in this process can answer it). */
export function benchAsync(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/bench.js'), ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, FORCE_COLOR: '0', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
