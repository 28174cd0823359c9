// The report's tables as plain rows, rendered by html.ts and markdown.ts alike.
import type { ConfigSummary } from '../stats/aggregate.ts';
import { fitFormula, formatStopReasons, perSuccessText } from '../format/figures.ts';
import type { StepLimitSaving, StepRatio } from '../stats/step-limits.ts';
import type { QuadraticFit } from '../stats/fit.ts';
import { int, pct, times, usd, usdDistinct } from '../format/numbers.ts';
import type { ConfigEconomics } from '../stats/economics.ts';
import type { RepricedConfig } from '../stats/reprice.ts';
import type { VolumeProjection } from '../stats/volume.ts';
import type { RunRecord } from '../../contracts/records.ts';
import { distinct } from '../data/group.ts';

export interface Table {
  head: string[];
  rows: string[][];
  /** Columns aligned right (numbers). */
  numeric: number[];
}

const successCell = (c: ConfigSummary) =>
  c.success_rate === null
    ? 'not checked'
    : `${c.successes}/${c.runs} (${pct(c.success_ci!.lo)}–${pct(c.success_ci!.hi)})`;

/** The compact table fits a PR comment; the full one adds p95 input, max cost and (when any run had cache hits) cached tokens. */
export function summaryTable(summary: readonly ConfigSummary[], compact = false): Table {
  const cached = !compact && summary.some((c) => c.cached_tokens.mean > 0);
  type Col = [string, (c: ConfigSummary) => string, boolean];
  const mean = usdDistinct(summary.map((c) => c.cost_usd.mean));
  const p95 = usdDistinct(summary.map((c) => c.cost_usd.p95));
  const max = usdDistinct(summary.map((c) => c.cost_usd.max));
  const cols: Col[] = [
    ['configuration', (c) => c.config_id, false],
    ['runs', (c) => String(c.runs), true],
    ['success (95% CI)', successCell, false],
    ['stop reasons', formatStopReasons, false],
    ['steps mean', (c) => c.steps.mean.toFixed(1), true],
    ['input tokens mean', (c) => int(c.input_tokens.mean), true],
    ...(compact ? [] : [['input tokens p95', (c) => int(c.input_tokens.p95), true] as Col]),
    ...(cached ? [['cached tokens mean', (c) => int(c.cached_tokens.mean), true] as Col] : []),
    ['output tokens mean', (c) => int(c.output_tokens.mean), true],
    ['cost mean', (c) => mean(c.cost_usd.mean), true],
    ['cost p95', (c) => p95(c.cost_usd.p95), true],
    ...(compact ? [] : [['cost max', (c) => max(c.cost_usd.max), true] as Col]),
  ];
  return {
    head: cols.map(([h]) => h),
    rows: summary.map((c) => cols.map(([, f]) => f(c))),
    numeric: cols.flatMap(([, , n], i) => (n ? [i] : [])),
  };
}

/** Per configuration: cost per run next to cost per successful task, and what one more step costs. */
export function decisionTable(summary: readonly ConfigSummary[], economics: readonly ConfigEconomics[]): Table {
  const econ = new Map(economics.map((e) => [e.config_id, e]));
  const all = economics.flatMap((e) => [
    e.cost_per_run,
    e.cost_per_success ?? 0,
    e.cost_per_success_ci?.lo ?? 0,
    e.cost_per_success_ci?.hi ?? 0,
  ]);
  const money = usdDistinct(all.filter(Number.isFinite));
  const step = usdDistinct(economics.flatMap((e) => [e.marginal_step_cost ?? 0, e.marginal_step_cost_fit ?? 0]));
  return {
    head: [
      'configuration',
      'success (95% CI)',
      'cost per run',
      'cost per successful task (95% CI)',
      '+1 step (measured)',
      '+1 step (fit)',
    ],
    rows: summary.map((c) => {
      const e = econ.get(c.config_id)!;
      const perSuccess =
        e.cost_per_success === null
          ? 'not measured (no check)'
          : perSuccessText(e.cost_per_success, e.cost_per_success_ci, money, e.unseen_failures, e.wide_spread);
      return [
        c.config_id,
        successCell(c),
        money(e.cost_per_run),
        perSuccess,
        e.marginal_step_cost === null ? '–' : step(e.marginal_step_cost),
        e.marginal_step_cost_fit === null ? '–' : step(e.marginal_step_cost_fit),
      ];
    }),
    numeric: [2, 4, 5],
  };
}

export function fitTable(fits: readonly QuadraticFit[]): Table {
  return {
    head: ['scenario', 'cumulative input tokens ≈', 'a (tokens/step)', 'b (tokens/step²)', 'R²', 'calls fitted'],
    rows: fits.map((f) => [f.scenario, fitFormula(f), f.a.toFixed(1), f.b.toFixed(2), f.r2.toFixed(4), int(f.points)]),
    numeric: [2, 3, 4, 5],
  };
}

export function ratioTableRows(ratios: readonly StepRatio[]): Table {
  return {
    head: [
      'scenario',
      'MAX_STEPS',
      'steps taken (mean)',
      'steps taken ×k',
      'input tokens ×r (measured)',
      'input tokens ×r (fit)',
    ],
    rows: ratios.map((r) => [
      r.scenario,
      `${r.from_max_steps} → ${r.to_max_steps}`,
      `${r.from_steps_mean.toFixed(1)} → ${r.to_steps_mean.toFixed(1)}`,
      times(r.steps_ratio),
      times(r.tokens_ratio),
      r.fit_tokens_ratio === null ? '–' : times(r.fit_tokens_ratio),
    ]),
    numeric: [2, 3, 4, 5],
  };
}

export function savingsTable(savings: readonly StepLimitSaving[]): Table {
  return {
    head: ['scenario', 'MAX_STEPS', 'mean cost', 'cost saved', 'successes lost'],
    rows: savings.map((s) => [
      s.scenario,
      `${s.highest_steps} → ${s.max_steps}`,
      `${usd(s.highest_cost_usd_mean)} → ${usd(s.cost_usd_mean)}`,
      pct(s.cost_saved),
      s.successes_lost === null
        ? 'not checked'
        : s.runs === s.highest_runs
          ? `${s.successes_lost} of ${s.highest_successes}`
          : `${Math.round(s.success_rate_lost! * 100)} points of rate`,
    ]),
    numeric: [2, 3],
  };
}

/** One row per configuration, a per-day and per-month column pair per volume. */
export function volumeTable(volumes: readonly VolumeProjection[]): Table {
  const levels = distinct(volumes.map((v) => v.runs_per_day));
  const configs = distinct(volumes.map((v) => v.config_id));
  // Per column, digits enough that different configurations never print the same amount.
  const at = (l: number, f: (v: VolumeProjection) => number) =>
    usdDistinct(volumes.filter((v) => v.runs_per_day === l).map(f));
  const perDay = Object.fromEntries(levels.map((l) => [l, at(l, (v) => v.cost_usd_per_day)]));
  const perMonth = Object.fromEntries(levels.map((l) => [l, at(l, (v) => v.cost_usd_per_month)]));
  const written = (l: number) => volumes.find((v) => v.runs_per_day === l)!.as_written;
  return {
    head: ['configuration', ...levels.flatMap((l) => [`${written(l)}: per day`, 'per month'])],
    rows: configs.map((c) => [
      c,
      ...levels.flatMap((l) => {
        const v = volumes.find((x) => x.config_id === c && x.runs_per_day === l)!;
        return [perDay[l]!(v.cost_usd_per_day), perMonth[l]!(v.cost_usd_per_month)];
      }),
    ]),
    numeric: levels.flatMap((_, i) => [1 + 2 * i, 2 + 2 * i]),
  };
}

export function repriceTable(rows: readonly RepricedConfig[]): Table {
  return {
    head: ['configuration', 'priced as', 'prompt cache', 'cost mean', 'vs recorded'],
    rows: rows.map((r) => [
      r.config_id,
      r.price_model,
      r.prompt_cache ? (r.cache_estimated ? 'on (estimated)' : 'on') : 'off',
      usd(r.cost_usd_mean),
      times(r.ratio_to_recorded),
    ]),
    numeric: [3, 4],
  };
}

export function runsTable(runs: readonly RunRecord[]): Table {
  return {
    head: ['run', 'stop reason', 'detail', 'steps', 'input tokens', 'cost', 'success'],
    rows: runs.map((r) => [
      r.run_id,
      r.stop_reason,
      r.stop_detail,
      String(r.steps),
      int(r.input_tokens),
      usd(r.cost_usd),
      r.success === null ? '–' : r.success ? 'yes' : 'no',
    ]),
    numeric: [3, 4, 5],
  };
}
