// Baselines: what each scenario cost before the change. A baseline is a previous results directory
// or the baseline.json `bench check` writes next to its results (small enough to commit).
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { UsageError } from '../contracts/errors.ts';
import { InputFileError, MAX_RECORDED_BYTES, readInputFile } from '../contracts/input-file.ts';
import { mean } from '../report/stats.ts';
import { loadRuns } from '../report/load-runs.ts';
import type { RunFacts } from '../contracts/records.ts';
import { resultFile } from '../results/results-dir.ts';
import { formatZodError } from '../scenario/yaml-file.ts';
import { usd } from '../report/format.ts';
import type { MaxRegression } from './budgets-schema.ts';
import type { Verdict } from './verdict.ts';
import { groupBy } from '../report/group.ts';

const Entry = z
  .object({
    runs: z.number().int().nonnegative(),
    tokens_mean: z.number().nonnegative(),
    cost_usd_mean: z.number().nonnegative(),
    success_rate: z.number().min(0).max(1).nullable(),
  })
  .strict();
export type BaselineEntry = z.infer<typeof Entry>;

export const BaselineSchema = z.object({ tool: z.literal('loopbench-baseline'), created_at: z.string(), scenarios: z.record(z.string(), Entry) }).strict();
export type Baseline = z.infer<typeof BaselineSchema>;

/** Per scenario: mean tokens (input + output) and cost per run, and the success rate. */
export function baselineOf(runs: readonly RunFacts[], createdAt = new Date().toISOString()): Baseline {
  const by = groupBy(runs, (r) => r.scenario);
  const scenarios: Record<string, BaselineEntry> = {};
  for (const [id, rs] of [...by].sort(([a], [b]) => a.localeCompare(b))) {
    const checked = rs.filter((r) => r.success !== null);
    scenarios[id] = {
      runs: rs.length,
      tokens_mean: mean(rs.map((r) => r.input_tokens + r.output_tokens)),
      cost_usd_mean: mean(rs.map((r) => r.cost_usd)),
      success_rate: checked.length ? checked.filter((r) => r.success).length / checked.length : null,
    };
  }
  return { tool: 'loopbench-baseline', created_at: createdAt, scenarios };
}

export async function loadBaseline(ref: string): Promise<Baseline> {
  if (fs.existsSync(ref) && fs.statSync(ref).isDirectory()) {
    const { runs } = await loadRuns(resultFile(ref, 'runs'));
    if (runs.length === 0) throw new UsageError(`--baseline ${ref}: no runs in ${path.join(ref, 'runs.jsonl')}`);
    return baselineOf(runs);
  }
  let value: unknown;
  try {
    value = JSON.parse(readInputFile(ref, MAX_RECORDED_BYTES));
  } catch (e) {
    const why = e instanceof InputFileError ? e.why : (e as Error).message;
    throw new UsageError(`--baseline ${ref}: not a results directory or a baseline JSON file (${why})`);
  }
  const parsed = BaselineSchema.safeParse(value);
  if (!parsed.success) throw new UsageError(`--baseline ${formatZodError(ref, parsed.error)}`);
  return parsed.data;
}

const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(0)}%`;
const points = (x: number) => `${Math.abs(x * 100).toFixed(0)} point${Math.round(Math.abs(x * 100)) === 1 ? '' : 's'}`;

/** Change against the baseline for one scenario; a verdict fails only where `max` sets a limit. */
export function compareToBaseline(scenario: string, before: BaselineEntry | undefined, now: BaselineEntry, max: MaxRegression): Verdict[] {
  if (!before) return [{ suite: scenario, name: 'baseline', pass: true, measured: 'not in the baseline', limit: '-', message: `${scenario}: not in the baseline, nothing to compare` }];
  const out: Verdict[] = [];
  const relative = (kind: 'cost' | 'tokens', b: number, a: number, show: (x: number) => string, noun: string) => {
    const change = b === 0 ? (a === 0 ? 0 : Infinity) : a / b - 1;
    const limit = max[kind];
    const pass = limit === undefined || change <= limit + 1e-12;
    const words = change >= 0 ? `${signed(change).slice(1)} more` : `${signed(change).slice(1)} less`;
    out.push({
      suite: scenario,
      name: `baseline: ${kind} per task`,
      pass,
      measured: `${show(b)} → ${show(a)} (${signed(change)})`,
      limit: limit === undefined ? 'report only' : `≤ +${(limit * 100).toFixed(0)}%`,
      message: `${scenario}: the new prompt ${kind === 'cost' ? 'costs' : 'uses'} ${words}${noun ? ` ${noun}` : ''} per task (${show(b)} → ${show(a)}${limit === undefined ? '' : `, allowed +${(limit * 100).toFixed(0)}%`})`,
    });
  };
  relative('cost', before.cost_usd_mean, now.cost_usd_mean, usd, '');
  relative('tokens', before.tokens_mean, now.tokens_mean, (x) => Math.round(x).toLocaleString('en-US'), 'tokens');
  if (before.success_rate !== null && now.success_rate !== null) {
    const drop = before.success_rate - now.success_rate;
    const limit = max.success;
    const pass = limit === undefined || drop <= limit + 1e-12;
    const pc = (x: number) => `${(x * 100).toFixed(0)}%`;
    out.push({
      suite: scenario,
      name: 'baseline: success rate',
      pass,
      measured: `${pc(before.success_rate)} → ${pc(now.success_rate)}`,
      limit: limit === undefined ? 'report only' : `drop ≤ ${points(limit)}`,
      message: `${scenario}: the new prompt succeeds ${drop > 0 ? `${points(drop)} less` : drop < 0 ? `${points(-drop)} more` : 'as'} often (${pc(before.success_rate)} → ${pc(now.success_rate)}${limit === undefined ? '' : `, allowed drop ${points(limit)}`})`,
    });
  }
  return out;
}
