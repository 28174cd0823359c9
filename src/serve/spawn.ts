// `bench serve` as a child process on a free port, for benchmarks and tests that want it out of process.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../contracts/paths.ts';

export interface SpawnedServer {
  url: string;
  /** The child's process id (bench perf reads its CPU time from /proc). */
  pid: number;
  close(): Promise<void>;
}

/** `bench serve` in its own process on a free port, as a user runs it (and on its own core). */
export async function spawnServe(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<SpawnedServer> {
  const log = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-serve-')), 'usage.jsonl');
  const server = await spawnServer(
    path.join(ROOT, 'bin/bench.js'),
    ['serve', '--port', '0', '--log', log, ...args],
    env,
  );
  return {
    ...server,
    close: () => server.close().then(() => fs.rmSync(path.dirname(log), { recursive: true, force: true })),
  };
}

/** `bench serve` in gateway mode (`args` name its --upstream and --out) in its own process: no usage log, which the gateway refuses (its records go to --out). */
export function spawnGateway(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<SpawnedServer> {
  return spawnServer(path.join(ROOT, 'bin/bench.js'), ['serve', '--port', '0', ...args], env);
}

/** A Node script that prints its base URL (`http://…/v1`) on stdout once it listens; closed with SIGTERM. */
export async function spawnServer(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<SpawnedServer> {
  const child = spawn(process.execPath, [script, ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /(http:\/\/\S+\/v1)/.exec(out);
      if (m) resolve(m[1]!);
    });
    void exited.then(() => reject(new Error(`${path.basename(script)} exited before listening: ${out}`)));
  });
  return {
    url,
    pid: child.pid!,
    close: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
