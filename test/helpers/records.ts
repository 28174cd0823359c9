// Synthetic records for report tests: runs whose per-call input grows linearly, as a full-history loop does.
import fs from 'node:fs';
import path from 'node:path';
import type { RunRecord, StepRecord } from '../../src/contracts/records.ts';
import { SEED_LIMITS, type Settings } from '../../src/contracts/settings.ts';

export const PRICE = { model: 'gpt-4o-mini', input_per_1m: 0.15, cached_input_per_1m: 0.075, output_per_1m: 0.6 };

export function settings(scenario: string, maxSteps: number, repeat = 0): Settings {
  return {
    scenario,
    model: 'sim',
    limits: { ...SEED_LIMITS, max_steps: maxSteps },
    reflection: 'off',
    max_reflections: 2,
    context: 'full',
    price: PRICE,
    prompt_cache: false,
    max_output_tokens: 1024,
    seed: 1000 + repeat,
    repeat,
    agent: {},
  };
}

export interface SynthRun {
  scenario: string;
  maxSteps: number;
  repeat: number;
  /** Input tokens of call n (1-based). */
  input: (n: number) => number;
  /** Steps the run takes before it answers (≤ maxSteps means done, else the step limit stops it). */
  stepsToDone?: number;
  success?: boolean | null;
}

export function synthRun(o: SynthRun): { run: RunRecord; steps: StepRecord[] } {
  const s = settings(o.scenario, o.maxSteps, o.repeat);
  const configId = `${o.scenario} steps=${o.maxSteps}`;
  const runId = `${configId.replace(/[^a-zA-Z0-9.=-]+/g, '_')}_r${o.repeat}`;
  const done = o.stepsToDone !== undefined && o.stepsToDone <= o.maxSteps;
  const n = done ? o.stepsToDone! : o.maxSteps;
  const steps: StepRecord[] = [];
  let cumIn = 0;
  let cumOut = 0;
  let cumCost = 0;
  for (let step = 1; step <= n; step++) {
    const input = o.input(step);
    const output = 150;
    const cost = (input * PRICE.input_per_1m + output * PRICE.output_per_1m) / 1e6;
    cumIn += input;
    cumOut += output;
    cumCost += cost;
    const final = done && step === n;
    steps.push({
      run_id: runId,
      config_id: configId,
      scenario: o.scenario,
      step,
      round: 0,
      role: 'act',
      call: step,
      input_tokens: input,
      output_tokens: output,
      cached_tokens: 0,
      cum_input_tokens: cumIn,
      cum_output_tokens: cumOut,
      cost_usd: cost,
      cum_cost_usd: cumCost,
      latency_ms: 1000,
      elapsed_ms: step * 1000,
      retries: 0,
      action: final ? null : 'search',
      fingerprint: final ? null : `search({"q":"${step}"})`,
      error: null,
      settings: s,
    });
  }
  const run: RunRecord = {
    run_id: runId,
    config_id: configId,
    scenario: o.scenario,
    agent: 'react',
    settings: s,
    stop_reason: done ? 'done' : 'max_steps',
    stop_detail: done ? 'answered' : `MAX_STEPS=${o.maxSteps} reached`,
    stop_step: n,
    steps: n,
    calls: n,
    rounds: 0,
    input_tokens: cumIn,
    output_tokens: cumOut,
    cached_tokens: 0,
    cost_usd: cumCost,
    elapsed_ms: n * 1000,
    answer: done ? '338350' : null,
    success: o.success === undefined ? null : o.success,
    started_at: '2026-01-01T00:00:00.000Z',
    finished_at: '2026-01-01T00:01:00.000Z',
  };
  return { run, steps };
}

/** The seed's assumption: a 200-token prompt, each round adds 600 tokens. */
export const seedInput = (n: number) => 200 + 600 * (n - 1);

export function writeResults(dir: string, runs: Array<{ run: RunRecord; steps: StepRecord[] }>): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'runs.jsonl'), runs.map((r) => `${JSON.stringify(r.run)}\n`).join(''));
  fs.writeFileSync(
    path.join(dir, 'steps.jsonl'),
    runs.flatMap((r) => r.steps.map((s) => `${JSON.stringify(s)}\n`)).join(''),
  );
}

/** A sweep of two scenarios × two step limits: seed-shaped (never done) and a checked one that mostly finishes early. */
export function sampleSweep(limits = [10, 30], repeats = 4): Array<{ run: RunRecord; steps: StepRecord[] }> {
  const out = [];
  for (const maxSteps of limits) {
    for (let repeat = 0; repeat < repeats; repeat++) {
      out.push(synthRun({ scenario: 'seed-shaped', maxSteps, repeat, input: seedInput }));
      const stepsToDone = repeat === 0 ? 20 : 3 + repeat;
      out.push(
        synthRun({
          scenario: 'checked',
          maxSteps,
          repeat,
          input: (n) => 150 + 300 * (n - 1),
          stepsToDone,
          success: stepsToDone <= maxSteps,
        }),
      );
    }
  }
  return out;
}
