// Everything the human-facing reports (HTML, Markdown) show, computed once by build.ts.
import type { ConfigSummary } from '../stats/aggregate.ts';
import type { ChartSpec } from '../charts/base.ts';
import type { ConfigEconomics } from '../stats/economics.ts';
import { isDerived } from '../../contracts/derived.ts';
import type { StepLimitSaving, StepRatio } from '../stats/step-limits.ts';
import type { QuadraticFit } from '../stats/fit.ts';
import type { RepricedConfig } from '../stats/reprice.ts';
import type { VolumeProjection } from '../stats/volume.ts';
import type { ConstraintRow, RoleRow, RoundRow } from '../stats/taskqueue.ts';
import type { DetectorRow } from '../stats/detectors.ts';
import type { StabilityRow } from '../stats/reflection.ts';
import type { ContextRow } from '../stats/context.ts';
import type { Meta } from '../../results/meta.ts';
import type { RunFacts, RunRecord } from '../../contracts/records.ts';
import { UNKNOWN_PRICE, type Price } from '../../contracts/settings.ts';
import { distinct } from '../data/group.ts';
import { counted } from '../format/numbers.ts';
import type { PrecisionOutcome } from '../stats/precision.ts';
import type { Recommendation } from '../findings/decision.ts';
import type { Spend } from '../stats/spend.ts';

export interface RenderedChart extends Omit<ChartSpec, 'spec'> {
  svg: string;
}

export interface ReportData {
  name: string;
  meta: Meta | null;
  generated_at: string;
  runs: readonly RunFacts[];
  /** The first runs (up to MAX_RUN_ROWS) as whole records, for the HTML's runs table. */
  shownRuns: readonly RunRecord[];
  summary: readonly ConfigSummary[];
  economics: readonly ConfigEconomics[];
  /** The recommended MAX_STEPS per scenario (or, without a check, what the limits swept show): what the report opens with. */
  decisions: readonly string[];
  /** What the decisions say, as figures (the title is made of them). */
  recommendations: readonly Recommendation[];
  /** Whether any scenario has a recommended limit (none does without checks). */
  recommended?: boolean;
  /** How the report is priced (as recorded, or re-priced from the recorded tokens). */
  pricing: string;
  fits: readonly QuadraticFit[];
  ratios: readonly StepRatio[];
  savings: readonly StepLimitSaving[];
  volumes: readonly VolumeProjection[];
  repriced: readonly RepricedConfig[];
  findings: readonly string[];
  charts: readonly RenderedChart[];
  /** Reflection and context-strategy reports (empty when neither was used). */
  loop?: { stability: readonly StabilityRow[]; context: readonly ContextRow[] };
  /** Incomplete lines skipped, and run records not counted because an earlier line had their run id. */
  skipped: { steps: number; runs: number; duplicateRuns?: number };
  /** Present when the results hold task-queue runs. */
  taskqueue: { rounds: readonly RoundRow[]; roles: readonly RoleRow[]; constraints: readonly ConstraintRow[] } | null;
  /** Spin detectors paired with the same configuration without them (empty when none was swept on and off). */
  detectors?: readonly DetectorRow[];
  /** `bench run --repeat auto`: how many runs each configuration took and why (empty otherwise). */
  sampling?: readonly PrecisionOutcome[];
  /** Spend per day and per model of the calls that carry their time (imported logs); null: no call does. */
  spend?: Spend | null;
}

/** `gpt-4o-mini ($0.15 input / $0.075 cached input / $0.6 output per 1M tokens)` */
/** The rates a reader needs to check a cost: cache writes and long-context tiers only where the price has them. */
export function describePrice(p: Price): string {
  const writes = p.cache_write_per_1m !== undefined ? ` / $${p.cache_write_per_1m} cache writes` : '';
  const tiers = (p.long_context ?? [])
    .map(
      (t) =>
        `; prompts over ${t.above_tokens.toLocaleString('en-US')} tokens: $${t.input_per_1m} input / $${t.output_per_1m} output, the whole call`,
    )
    .join('');
  return `${p.model} ($${p.input_per_1m} input / $${p.cached_input_per_1m} cached input${writes} / $${p.output_per_1m} output per 1M tokens${tiers})`;
}

export function describePrices(summary: readonly ConfigSummary[]): string[] {
  return distinct(summary.map((c) => JSON.stringify(c.settings.price))).map((j) =>
    describePrice(JSON.parse(j) as Price),
  );
}

/** Import formats whose logs record tokens but no costs: every call is priced by the import (coding-agent session logs). */
export const PRICED_PER_CALL: ReadonlySet<string> = new Set(['claude-code', 'codex']);

/**
 * How the report's costs were priced, as the reports say it after "Costs", by where they come from.
 * Imported runs (`imported`: the import's format) carry the costs their trajectories recorded, and a
 * price of theirs only priced steps that recorded tokens but no cost; message lists record no usage at
 * all, so loopbench counted every token and priced every call.
 */
export function describePricing(
  summary: readonly ConfigSummary[],
  o: { price?: Price; imported: string | null },
): string {
  if (o.price)
    return `re-priced as ${describePrice(o.price)} from recorded tokens (the brakes fired at the recorded prices)`;
  if (o.imported === null) return `priced as recorded: ${describePrices(summary).join('; ')}`;
  const known = describePrices(summary.filter((c) => c.settings.price.model !== UNKNOWN_PRICE.model));
  if (o.imported === 'messages')
    return `counted by loopbench: the message lists hold no usage, so every call's tokens were counted with loopbench's o200k_base counter and priced as ${known.join('; ')}`;
  // A chat log records each call's usage but never its cost.
  if (o.imported === 'chatlog' && known.length)
    return `priced by loopbench: tokens as the chat log recorded them, which records no cost, priced as ${known.join('; ')}`;
  if (PRICED_PER_CALL.has(o.imported))
    return `priced per call from its recorded tokens at the rates of the model it recorded (the logs hold no costs): ${known.join('; ') || 'no model of theirs has a price'}; cache writes at the cache-write rate, 1-hour writes at the 1-hour rate (2× input where the table has none)`;
  return `as recorded in the trajectories${known.length ? ` (steps with tokens but no cost_usd priced as ${known.join('; ')})` : ''}`;
}

/** The same, in the few words a chart's caption has room for. */
export function chartPricing(o: { price?: Price; imported: string | null }): string {
  if (o.price) return `re-priced as ${o.price.model}`;
  if (o.imported === 'messages') return 'tokens counted and priced by loopbench';
  if (o.imported !== null && PRICED_PER_CALL.has(o.imported)) return "at each call's recorded model's rates";
  return o.imported ? 'as recorded in the trajectories' : 'at the recorded prices';
}

/** The swept dimensions and the fixed limits, as `name: values` lines. */
export function describeSettings(summary: readonly ConfigSummary[]): Array<[string, string]> {
  const show = (v: unknown) => (v === null ? 'off' : String(v));
  const rows: Array<[string, string]> = [['models', distinct(summary.map((c) => c.settings.model)).join(', ')]];
  const keys = Object.keys(summary[0]?.settings.limits ?? {}) as Array<keyof ConfigSummary['settings']['limits']>;
  for (const k of keys) rows.push([k, distinct(summary.map((c) => show(c.settings.limits[k]))).join(', ')]);
  rows.push(['reflection', distinct(summary.map((c) => c.settings.reflection)).join(', ')]);
  rows.push(['context', distinct(summary.map((c) => c.settings.context)).join(', ')]);
  rows.push(['prompt cache', distinct(summary.map((c) => (c.settings.prompt_cache ? 'on' : 'off'))).join(', ')]);
  return rows;
}

/** `40 runs` or `40 runs (30 derived by what-if)`. */
export function runCount(d: Pick<ReportData, 'runs'>): string {
  const derived = d.runs.filter((r) => isDerived(r.config_id)).length;
  return `${counted(d.runs.length, 'run')}${derived ? ` (${derived} derived by what-if, no model called)` : ''}`;
}
