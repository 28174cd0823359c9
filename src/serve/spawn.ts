// `bench serve` as a child process on a free port, for benchmarks and tests that want it out of process.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../contracts/paths.ts';

/** `bench serve` in its own process on a free port, as a user runs it (and on its own core). */
export async function spawnServe(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ url: string; close(): Promise<void> }> {
  const log = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-serve-')), 'usage.jsonl');
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/bench.js'), 'serve', '--port', '0', '--log', log, ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /(http:\/\/\S+\/v1)/.exec(out);
      if (m) resolve(m[1]!);
    });
    void exited.then(() => reject(new Error(`bench serve exited before listening: ${out}`)));
  });
  return {
    url,
    close: async () => {
      child.kill('SIGTERM');
      await exited;
      fs.rmSync(path.dirname(log), { recursive: true, force: true });
    },
  };
}
