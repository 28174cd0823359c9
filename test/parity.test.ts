// Parity: the same scenario, seed and settings run in process (`--model sim`) and over real HTTP
// (`--model openai:<profile>` through the official SDK against `bench serve`) give identical
// steps, stop reasons and token counts. This is what shows the real-provider path meters correctly.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunRecord, StepRecord } from '../src/contracts/records.ts';
import type { RunningServer } from '../src/serve/server.ts';
import { sweepWith, type SweepResult } from '../src/serve/sweep-against.ts';
import { envFor, serve } from './serve-helpers.ts';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

const runView = (r: RunRecord) => ({
  run: r.run_id,
  scenario: r.scenario,
  seed: r.settings.seed,
  stop: r.stop_reason,
  stop_step: r.stop_step,
  steps: r.steps,
  calls: r.calls,
  input: r.input_tokens,
  output: r.output_tokens,
  cached: r.cached_tokens,
  cost: r.cost_usd,
  answer: r.answer,
  success: r.success,
});
const stepView = (s: StepRecord) => [
  s.run_id,
  s.step,
  s.role,
  s.input_tokens,
  s.output_tokens,
  s.cached_tokens,
  s.action,
  s.fingerprint,
  s.retries,
  s.error,
];

function compare(a: SweepResult, b: SweepResult): void {
  // Run ids name scenario, settings and repeat (one model per sweep here), so they pair the runs up.
  const runs = (r: SweepResult) => [...r.runs].sort((p, q) => p.run_id.localeCompare(q.run_id)).map(runView);
  expect(runs(b)).toEqual(runs(a));
  const steps = (r: SweepResult) =>
    r.steps
      .map(stepView)
      .sort((p, q) => `${p[0]}:${String(p[1]).padStart(4)}`.localeCompare(`${q[0]}:${String(q[1]).padStart(4)}`));
  expect(steps(b)).toEqual(steps(a));
}

describe('in-process sim and bench serve give identical runs', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await serve();
  });
  afterAll(() => server.close());

  it('seed-calibrated and tiny-agent, 2 repeats, 2 step limits, concurrency 3, prompt cache off', async () => {
    const flags = {
      scenario: 'seed-calibrated,tiny-agent-sum-of-squares',
      steps: '4,9',
      repeat: '2',
      seed: '11',
      concurrency: '3',
    };
    const local = await sweepWith({ ...flags, model: 'sim' });
    // The model name picks the profile server-side; the scenario's own profile is the same one.
    const servedSeed = await sweepWith(
      { ...flags, scenario: 'seed-calibrated', model: 'openai:seed-calibrated' },
      { env: envFor(server) },
    );
    const servedTiny = await sweepWith(
      { ...flags, scenario: 'tiny-agent-sum-of-squares', model: 'openai:tiny-agent' },
      { env: envFor(server) },
    );
    dirs.push(local.dir, servedSeed.dir, servedTiny.dir);
    const served = {
      ...servedSeed,
      runs: [...servedSeed.runs, ...servedTiny.runs],
      steps: [...servedSeed.steps, ...servedTiny.steps],
    };
    expect(local.runs).toHaveLength(8);
    expect(new Set(local.runs.map((r) => r.stop_reason))).toEqual(new Set(['max_steps', 'done']));
    compare(local, served);
  });

  it('with the prompt cache on, one run at a time (a provider cache is shared across runs)', async () => {
    const cached = await serve({ promptCache: true });
    try {
      const flags = {
        scenario: 'seed-calibrated',
        steps: '12',
        repeat: '1',
        seed: '5',
        concurrency: '1',
        promptCache: 'on',
      };
      const local = await sweepWith({ ...flags, model: 'sim' });
      const served = await sweepWith({ ...flags, model: 'openai:seed-calibrated' }, { env: envFor(cached) });
      dirs.push(local.dir, served.dir);
      expect(local.runs[0]!.cached_tokens).toBeGreaterThan(0);
      compare(local, served);
    } finally {
      await cached.close();
    }
  });

  it('runs over HTTP use the wall clock and the sim its virtual clock; the counts still agree', async () => {
    const flags = { scenario: 'seed-calibrated', steps: '3', repeat: '1' };
    const local = await sweepWith({ ...flags, model: 'sim' });
    const served = await sweepWith({ ...flags, model: 'openai:seed-calibrated' }, { env: envFor(server) });
    dirs.push(local.dir, served.dir);
    // Simulated latency (≥ 200 ms a call by the profile) vs. a real localhost round trip.
    expect(local.steps.every((s) => s.latency_ms >= 200)).toBe(true);
    expect(served.runs[0]!.input_tokens).toBe(local.runs[0]!.input_tokens);
  });
});
