// Baselines: what each scenario cost before the change. A baseline is a previous results directory
// or the baseline.json `bench check` writes next to its results (small enough to commit).
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { UsageError } from '../contracts/errors.ts';
import { InputFileError, MAX_RECORDED_BYTES, readInputFile } from '../contracts/input-file.ts';
import { mean } from '../report/stats/descriptive.ts';
import { describeDuplicates, loadRuns } from '../report/data/load-runs.ts';
import type { RunFacts } from '../contracts/records.ts';
import { resultFile } from '../results/results-dir.ts';
import { formatZodError } from '../scenario/yaml-file.ts';
import { usd } from '../report/format/numbers.ts';
import type { MaxRegression } from './budgets-schema.ts';
import type { Verdict } from './verdict.ts';
import { groupBy } from '../report/data/group.ts';
import { loadMeta } from '../results/meta.ts';
import { scenarioDigest } from '../results/digest.ts';
import type { SweepSpec } from '../runner/sweep.ts';
import {
  describeDifferences,
  disallowed,
  settingsOf,
  sweepDifferences,
  type DifferenceKind,
  type SweepSettings,
} from '../report/data/sweep-settings.ts';

const Entry = z
  .object({
    runs: z.number().int().nonnegative(),
    tokens_mean: z.number().nonnegative(),
    cost_usd_mean: z.number().nonnegative(),
    success_rate: z.number().min(0).max(1).nullable(),
  })
  .strict();
export type BaselineEntry = z.infer<typeof Entry>;

/** The settings the baseline was made with (the sweep's meta.json), checked field by field by sweepDifferences. */
const Settings = z
  .object({
    scenarios: z.array(z.string()),
    scenario_digests: z.record(z.string(), z.string()).optional(),
    grid: z.record(z.string(), z.unknown()),
    fixed: z.record(z.string(), z.unknown()),
    repeat: z.number().int().positive(),
    seed: z.number().int(),
  })
  .strict();

export const BaselineSchema = z
  .object({
    tool: z.literal('loopbench-baseline'),
    created_at: z.string(),
    settings: Settings.optional(),
    scenarios: z.record(z.string(), Entry),
  })
  .strict();
export type Baseline = Omit<z.infer<typeof BaselineSchema>, 'settings'> & { settings?: SweepSettings };

/** Per scenario: mean tokens (input + output) and cost per run, and the success rate; with the settings they were measured under. */
export function baselineOf(
  runs: readonly RunFacts[],
  settings: SweepSettings | undefined,
  createdAt = new Date().toISOString(),
): Baseline {
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
  return { tool: 'loopbench-baseline', created_at: createdAt, ...(settings ? { settings } : {}), scenarios };
}

export async function loadBaseline(ref: string): Promise<Baseline> {
  if (fs.existsSync(ref) && fs.statSync(ref).isDirectory()) {
    const { runs, duplicates } = await loadRuns(resultFile(ref, 'runs'));
    if (duplicates.length)
      console.error(`bench: --baseline ${describeDuplicates(path.join(ref, 'runs.jsonl'), duplicates)}`);
    if (runs.length === 0) throw new UsageError(`--baseline ${ref}: no runs in ${path.join(ref, 'runs.jsonl')}`);
    // A directory without meta.json gives a baseline that records no settings; a damaged one is an error naming the field.
    const meta = fs.existsSync(resultFile(ref, 'meta')) ? loadMeta(ref) : undefined;
    return baselineOf(runs, meta ? settingsOf(meta) : undefined);
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
  return parsed.data as Baseline;
}

/** The settings a budgets file's sweep runs with, as its meta.json will record them. */
export function settingsOfSpec(spec: SweepSpec): SweepSettings {
  return {
    scenarios: spec.scenarios.map((s) => s.id),
    scenario_digests: Object.fromEntries(spec.scenarios.map((s) => [s.id, scenarioDigest(s)])),
    grid: spec.grid,
    fixed: spec.fixed,
    repeat: spec.repeat,
    seed: spec.seed,
  };
}

/** What a baseline may differ in without being asked: the prompt (what it exists to judge) and which scenarios are run. */
export const BASELINE_MAY_DIFFER: readonly DifferenceKind[] = ['prompt', 'scenarios'];

/**
 * A baseline measured under other limits, repeats, model, prices or seed would compare two different
 * things and call the difference a regression (or a saving): an error naming each difference.
 */
export function assertComparableBaseline(
  baseline: Baseline,
  now: SweepSettings,
  ref: string,
  allowed: ReadonlySet<DifferenceKind>,
): void {
  if (!baseline.settings)
    throw new UsageError(
      `--baseline ${ref}: records no settings it was made with (made by an older loopbench, or a directory without meta.json), so a change of limits, repeats or model cannot be ruled out; re-create it with bench check on the baseline's commit`,
    );
  const refused = disallowed(sweepDifferences(baseline.settings, now), new Set([...BASELINE_MAY_DIFFER, ...allowed]));
  if (refused.length) {
    const kinds = [...new Set(refused.map((d) => d.kind))].join(',');
    throw new UsageError(
      `--baseline ${ref}: made with other settings than this check (baseline vs now): ${describeDifferences(refused)}; re-create the baseline with this budgets file, or add --allow ${kinds} if that comparison is meant`,
    );
  }
}

const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(0)}%`;
const points = (x: number) => `${Math.abs(x * 100).toFixed(0)} point${Math.round(Math.abs(x * 100)) === 1 ? '' : 's'}`;

/** Change against the baseline for one scenario; a verdict fails only where `max` sets a limit. */
export function compareToBaseline(
  scenario: string,
  before: BaselineEntry | undefined,
  now: BaselineEntry,
  max: MaxRegression,
): Verdict[] {
  if (!before)
    return [
      {
        suite: scenario,
        name: 'baseline',
        pass: true,
        reportOnly: true,
        measured: 'not in the baseline',
        limit: '-',
        message: `${scenario}: not in the baseline, nothing to compare`,
      },
    ];
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
      ...(limit === undefined ? { reportOnly: true as const } : {}),
      measured: `${show(b)} → ${show(a)} (${signed(change)})`,
      limit: limit === undefined ? `none: max_regression.${kind} not set` : `≤ +${(limit * 100).toFixed(0)}%`,
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
      ...(limit === undefined ? { reportOnly: true as const } : {}),
      measured: `${pc(before.success_rate)} → ${pc(now.success_rate)}`,
      limit: limit === undefined ? 'none: max_regression.success not set' : `drop ≤ ${points(limit)}`,
      message: `${scenario}: the new prompt succeeds ${drop > 0 ? `${points(drop)} less` : drop < 0 ? `${points(-drop)} more` : 'as'} often (${pc(before.success_rate)} → ${pc(now.success_rate)}${limit === undefined ? '' : `, allowed drop ${points(limit)}`})`,
    });
  }
  return out;
}
