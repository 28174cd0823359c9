// The report's tables as plain rows, rendered by html.ts and markdown.ts alike.
import { formatStopReasons, type ConfigSummary } from './aggregate.ts';
import { fitFormula } from './findings.ts';
import type { QuadraticFit, StepLimitSaving, StepRatio } from './fit.ts';
import { int, pct, times, usd } from './format.ts';
import type { RepricedConfig } from './reprice.ts';
import type { VolumeProjection } from './volume.ts';
import type { RunRecord } from '../runner/records.ts';
import { distinct } from './report-data.ts';

export interface Table {
  head: string[];
  rows: string[][];
  /** Columns aligned right (numbers). */
  numeric: number[];
}

const successCell = (c: ConfigSummary) =>
  c.success_rate === null ? 'not checked' : `${c.successes}/${c.runs} (${pct(c.success_ci!.lo)}–${pct(c.success_ci!.hi)})`;

export function summaryTable(summary: readonly ConfigSummary[], compact = false): Table {
  const head = ['configuration', 'runs', 'success (95% CI)', 'stop reasons', 'steps mean', 'input tokens mean', 'output tokens mean', 'cost mean', 'cost p95'];
  const full = ['input tokens p95', 'cached tokens mean', 'cost max', 'cost total'];
  return {
    head: compact ? head : [...head, ...full],
    rows: summary.map((c) => {
      const row = [c.config_id, String(c.runs), successCell(c), formatStopReasons(c), c.steps.mean.toFixed(1), int(c.input_tokens.mean), int(c.output_tokens.mean), usd(c.cost_usd.mean), usd(c.cost_usd.p95)];
      return compact ? row : [...row, int(c.input_tokens.p95), int(c.cached_tokens.mean), usd(c.cost_usd.max), usd(c.total_cost_usd)];
    }),
    numeric: compact ? [1, 4, 5, 6, 7, 8] : [1, 4, 5, 6, 7, 8, 9, 10, 11, 12],
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
    head: ['scenario', 'MAX_STEPS', 'steps', 'input tokens (measured)', 'input tokens (fit)'],
    rows: ratios.map((r) => [r.scenario, `${r.from_steps} → ${r.to_steps}`, times(r.steps_ratio), times(r.tokens_ratio), r.fit_tokens_ratio === null ? '–' : times(r.fit_tokens_ratio)]),
    numeric: [2, 3, 4],
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
      s.successes_lost === null ? 'not checked' : `${s.successes_lost} of ${s.highest_successes}`,
    ]),
    numeric: [2, 3],
  };
}

/** One row per configuration, a per-day and per-month column pair per volume. */
export function volumeTable(volumes: readonly VolumeProjection[]): Table {
  const levels = distinct(volumes.map((v) => v.runs_per_day));
  const configs = distinct(volumes.map((v) => v.config_id));
  return {
    head: ['configuration', ...levels.flatMap((l) => [`${int(l)} runs/day: per day`, 'per month'])],
    rows: configs.map((c) => [
      c,
      ...levels.flatMap((l) => {
        const v = volumes.find((x) => x.config_id === c && x.runs_per_day === l)!;
        return [usd(v.cost_usd_per_day), usd(v.cost_usd_per_month)];
      }),
    ]),
    numeric: levels.flatMap((_, i) => [1 + 2 * i, 2 + 2 * i]),
  };
}

export function repriceTable(rows: readonly RepricedConfig[]): Table {
  return {
    head: ['configuration', 'priced as', 'prompt cache', 'cost mean', 'vs recorded'],
    rows: rows.map((r) => [r.config_id, r.price_model, r.prompt_cache ? (r.cache_estimated ? 'on (estimated)' : 'on') : 'off', usd(r.cost_usd_mean), times(r.ratio_to_recorded)]),
    numeric: [3, 4],
  };
}

export function runsTable(runs: readonly RunRecord[]): Table {
  return {
    head: ['run', 'stop reason', 'detail', 'steps', 'input tokens', 'cost', 'success'],
    rows: runs.map((r) => [r.run_id, r.stop_reason, r.stop_detail, String(r.steps), int(r.input_tokens), usd(r.cost_usd), r.success === null ? '–' : r.success ? 'yes' : 'no']),
    numeric: [3, 4, 5],
  };
}
