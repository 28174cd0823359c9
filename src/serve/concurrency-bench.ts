// The concurrency benchmark: a sweep of runs × steps against `bench serve --latency L` at
// `--concurrency C` should take close to the ideal runs·steps·L/C. Efficiency = ideal / measured.
import fs from 'node:fs';
import { spawnServe } from './spawn.ts';
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
  /** CPU the harness side spent per call (user + system): on a busy machine, what explains a low efficiency. */
  cpuMsPerCall: number;
}

export const CONCURRENCY_TARGET: ConcurrencyBenchOptions = { runs: 100, steps: 10, concurrency: 16, latencyMs: 200 };

export async function concurrencyBench(
  o: ConcurrencyBenchOptions = CONCURRENCY_TARGET,
): Promise<ConcurrencyBenchResult> {
  const server = await spawnServe(['--latency', String(o.latencyMs)]);
  try {
    // The seed-calibrated profile never finishes early, so every run makes exactly `steps` calls.
    const cpu = process.cpuUsage();
    const r = await sweepWith(
      {
        model: 'openai:seed-calibrated',
        scenario: 'seed-calibrated',
        steps: String(o.steps),
        repeat: String(o.runs),
        concurrency: String(o.concurrency),
        timeout: 'off',
        maxCost: 'off',
      },
      { env: { OPENAI_API_KEY: 'bench-serve-needs-no-key', OPENAI_BASE_URL: server.url } },
    );
    const used = process.cpuUsage(cpu);
    fs.rmSync(r.dir, { recursive: true, force: true });
    const idealS = (o.runs * o.steps * o.latencyMs) / 1000 / o.concurrency;
    const measuredS = r.runsMs / 1000;
    return {
      ...o,
      calls: r.steps.length,
      idealS,
      measuredS,
      efficiency: idealS / measuredS,
      errors: r.runs.filter((x) => x.stop_reason === 'error').length,
      cpuMsPerCall: (used.user + used.system) / 1000 / Math.max(1, r.steps.length),
    };
  } finally {
    await server.close();
  }
}
