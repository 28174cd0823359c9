// The concurrency benchmark: a sweep of runs × steps against `bench serve --latency L` at
// `--concurrency C` should take close to the ideal runs·steps·L/C. Efficiency = ideal / measured.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../paths.ts';
import { sweepWith } from './sweep-against.ts';

export interface ConcurrencyBenchOptions {
  runs: number;
  steps: number;
  concurrency: number;
  latencyMs: number;
}

export interface ConcurrencyBenchResult extends ConcurrencyBenchOptions {
  calls: number;
  idealS: number;
  measuredS: number;
  /** ideal / measured: 1 is perfect, ≥ 0.9 is the target. */
  efficiency: number;
  errors: number;
}

export const CONCURRENCY_TARGET: ConcurrencyBenchOptions = { runs: 100, steps: 10, concurrency: 16, latencyMs: 200 };

export async function concurrencyBench(o: ConcurrencyBenchOptions = CONCURRENCY_TARGET): Promise<ConcurrencyBenchResult> {
  const server = await spawnServe(['--latency', String(o.latencyMs)]);
  try {
    // The seed-calibrated profile never finishes early, so every run makes exactly `steps` calls.
    const r = await sweepWith(
      { model: 'openai:seed-calibrated', scenario: 'seed-calibrated', steps: String(o.steps), repeat: String(o.runs), concurrency: String(o.concurrency), timeout: 'off', maxCost: 'off' },
      { env: { OPENAI_API_KEY: 'bench-serve-needs-no-key', OPENAI_BASE_URL: server.url } },
    );
    fs.rmSync(r.dir, { recursive: true, force: true });
    const idealS = (o.runs * o.steps * o.latencyMs) / 1000 / o.concurrency;
    const measuredS = r.runsMs / 1000;
    return { ...o, calls: r.steps.length, idealS, measuredS, efficiency: idealS / measuredS, errors: r.runs.filter((x) => x.stop_reason === 'error').length };
  } finally {
    await server.close();
  }
}

/** `bench serve` in its own process on a free port, as a user runs it (and on its own core). */
export async function spawnServe(args: string[]): Promise<{ url: string; close(): Promise<void> }> {
  const log = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-serve-')), 'usage.jsonl');
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/bench.js'), 'serve', '--port', '0', '--log', log, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
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
