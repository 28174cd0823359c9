// CSV reports: headers are snake_case with units in the names. Small tables go through csv-stringify;
// the per-step and per-run files, which grow with the sweep, are streamed row by row through
// `csvLine`, which writes exactly what csv-stringify writes for these rows (a test holds it to that)
// at a fraction of its per-field cost.
import { stringify } from 'csv-stringify/sync';
import { STOP_REASONS } from '../../contracts/stop-reason.ts';
import { LIMITS, showLimit } from '../../contracts/limits.ts';
import type { DerivedRun } from '../../contracts/derived.ts';
import type { ConfigEconomics } from '../stats/economics.ts';
import type { RunRecord, StepRecord } from '../../contracts/records.ts';
import type { ConfigSettings } from '../../contracts/settings.ts';
import type { ConfigSummary } from '../stats/aggregate.ts';
import type { StepPoints } from '../stats/step-points.ts';
import type { StepLimitSaving, StepRatio } from '../stats/step-limits.ts';
import type { QuadraticFit } from '../stats/fit.ts';
import type { RepricedConfig } from '../stats/reprice.ts';
import type { VolumeProjection } from '../stats/volume.ts';

/** One column per limit of the table of brakes; a detector only when the sweep had it on (LimitDef.detector). */
const limitsColumns = (s: ConfigSettings) =>
  Object.fromEntries(
    LIMITS.flatMap((d) => (d.key in s.limits || !('detector' in d) ? [[d.key, showLimit(s.limits[d.key])]] : [])),
  );

export function toCsv(rows: Array<Record<string, unknown>>): string {
  if (rows.length === 0) return '';
  return stringify(rows, { header: true, columns: Object.keys(rows[0]!), cast: { boolean: (v) => String(v) } });
}

const NEEDS_QUOTES = /[",\r\n]/;

function csvField(v: unknown): string {
  if (v === null || v === undefined) return '';
  // Most fields of the per-step rows: a number's digits never need quotes.
  if (typeof v === 'number') return String(v);
  const s = typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
  return NEEDS_QUOTES.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** One CSV line (RFC 4180 quoting, `\n`-terminated) of a row's values, or of its column names with `header`. */
export function csvLine(row: Record<string, unknown>, header = false): string {
  let line = '';
  let first = true;
  for (const key in row) {
    line += first ? csvField(header ? key : row[key]) : `,${csvField(header ? key : row[key])}`;
    first = false;
  }
  return `${line}\n`;
}

export function stepRow(r: StepRecord): Record<string, unknown> {
  return {
    run_id: r.run_id,
    config_id: r.config_id,
    scenario: r.scenario,
    step: r.step,
    round: r.round,
    role: r.role,
    call: r.call,
    input_tokens: r.input_tokens,
    output_tokens: r.output_tokens,
    cached_tokens: r.cached_tokens,
    cache_write_tokens: r.cache_write_tokens ?? 0,
    cache_write_1h_tokens: r.cache_write_1h_tokens ?? 0,
    reasoning_tokens: r.reasoning_tokens ?? 0,
    cum_input_tokens: r.cum_input_tokens,
    cum_output_tokens: r.cum_output_tokens,
    cost_usd: r.cost_usd,
    cum_cost_usd: r.cum_cost_usd,
    latency_ms: r.latency_ms,
    elapsed_ms: r.elapsed_ms,
    retries: r.retries,
    action: r.action ?? '',
    fingerprint: r.fingerprint ?? '',
    error: r.error ?? '',
    withheld: r.withheld ? 'yes' : '',
  };
}

/** A run's steps share these strings (its ids, role, tool names, error): each quoted (or not) once, not once a step. */
class LastField {
  private raw: unknown;
  private field = '';
  of(v: unknown): string {
    if (v !== this.raw || this.raw === undefined) {
      this.raw = v;
      this.field = csvField(v);
    }
    return this.field;
  }
}

/**
 * steps.csv's lines: `csvLine(stepRow(r))` byte for byte (a test holds it to that), without building
 * the row: a million-step report writes a million of them.
 */
export function stepLines(): (r: StepRecord) => string {
  const last = () => new LastField();
  const [run, config, scenario, role, action, error] = [last(), last(), last(), last(), last(), last()];
  const f = csvField;
  return (r) =>
    `${run.of(r.run_id)},${config.of(r.config_id)},${scenario.of(r.scenario)},${f(r.step)},${f(r.round)},${role.of(r.role)},${f(r.call)},${f(r.input_tokens)},${f(r.output_tokens)},${f(r.cached_tokens)},${f(r.cache_write_tokens ?? 0)},${f(r.cache_write_1h_tokens ?? 0)},${f(r.reasoning_tokens ?? 0)},${f(r.cum_input_tokens)},${f(r.cum_output_tokens)},${f(r.cost_usd)},${f(r.cum_cost_usd)},${f(r.latency_ms)},${f(r.elapsed_ms)},${f(r.retries)},${action.of(r.action ?? '')},${f(r.fingerprint ?? '')},${error.of(r.error ?? '')},${r.withheld ? 'yes' : ''}\n`;
}

export function runRow(r: RunRecord): Record<string, unknown> {
  return {
    run_id: r.run_id,
    config_id: r.config_id,
    scenario: r.scenario,
    agent: r.agent,
    model: r.settings.model,
    ...limitsColumns(r.settings),
    reflection: r.settings.reflection,
    context: r.settings.context,
    seed: r.settings.seed,
    repeat: r.settings.repeat,
    stop_reason: r.stop_reason,
    stop_step: r.stop_step,
    stop_detail: r.stop_detail,
    steps: r.steps,
    calls: r.calls,
    input_tokens: r.input_tokens,
    output_tokens: r.output_tokens,
    cached_tokens: r.cached_tokens,
    cache_write_tokens: r.cache_write_tokens ?? 0,
    cache_write_1h_tokens: r.cache_write_1h_tokens ?? 0,
    reasoning_tokens: r.reasoning_tokens ?? 0,
    cost_usd: r.cost_usd,
    elapsed_ms: r.elapsed_ms,
    success: r.success ?? '',
    answer: r.answer ?? '',
  };
}

/** A derived (what-if) run: the runs.csv columns, no answer (a run cut short has none), and the configuration it was derived from. */
export function derivedRow(r: DerivedRun): Record<string, unknown> {
  return { ...runRow({ ...r, answer: null, started_at: '', finished_at: '' }), derived_from: r.derived_from };
}

/** Cost per successful task and per extra step, next to the summary's columns. */
export function economicsRow(e: ConfigEconomics): Record<string, unknown> {
  const n = (x: number | null | undefined) => (x === null || x === undefined ? '' : Number.isFinite(x) ? x : 'inf');
  return {
    cost_usd_per_success: n(e.cost_per_success),
    cost_usd_per_success_ci95_lo: n(e.cost_per_success_ci?.lo),
    cost_usd_per_success_ci95_hi: n(e.cost_per_success_ci?.hi),
    marginal_cost_usd_per_step: n(e.marginal_step_cost),
    marginal_cost_usd_per_step_fit: n(e.marginal_step_cost_fit),
  };
}

/** Volume columns carry their unit and level in the name: cost_usd_per_day_at_10000_runs_per_day. */
export function summaryRow(c: ConfigSummary, volumes: readonly VolumeProjection[] = []): Record<string, unknown> {
  const projected = Object.fromEntries(
    volumes
      .filter((v) => v.config_id === c.config_id)
      .flatMap((v) => {
        const at = `at_${+v.runs_per_day.toFixed(3)}_runs_per_day`.replace('.', '_');
        return [
          [`cost_usd_per_day_${at}`, v.cost_usd_per_day],
          [`cost_usd_per_month_${at}`, v.cost_usd_per_month],
        ];
      }),
  );
  const reasons = Object.fromEntries(STOP_REASONS.map((k) => [`stop_${k}`, c.stop_reasons[k] ?? 0]));
  return {
    config_id: c.config_id,
    scenario: c.scenario,
    model: c.settings.model,
    ...limitsColumns(c.settings),
    reflection: c.settings.reflection,
    context: c.settings.context,
    price_model: c.settings.price.model,
    runs: c.runs,
    successes: c.successes ?? '',
    success_rate: c.success_rate ?? '',
    success_rate_ci95_lo: c.success_ci?.lo ?? '',
    success_rate_ci95_hi: c.success_ci?.hi ?? '',
    ...reasons,
    steps_mean: c.steps.mean,
    steps_max: c.steps.max,
    calls_mean: c.calls.mean,
    input_tokens_mean: c.input_tokens.mean,
    input_tokens_p50: c.input_tokens.p50,
    input_tokens_p95: c.input_tokens.p95,
    output_tokens_mean: c.output_tokens.mean,
    output_tokens_p50: c.output_tokens.p50,
    output_tokens_p95: c.output_tokens.p95,
    cached_tokens_mean: c.cached_tokens.mean,
    cost_usd_mean: c.cost_usd.mean,
    cost_usd_p50: c.cost_usd.p50,
    cost_usd_p95: c.cost_usd.p95,
    cost_usd_max: c.cost_usd.max,
    cost_usd_total: c.total_cost_usd,
    ...projected,
  };
}

/** Row `i` of steps_by_index.csv: point `i`. */
export const stepIndexRow = (points: StepPoints, i: number) => {
  const c = points.configOf(i);
  return {
    config_id: c.config_id,
    scenario: c.scenario,
    max_steps: c.max_steps ?? 'off',
    step: points.step[i]!,
    calls: points.calls[i]!,
    input_tokens_mean: points.inputTokens[i]!,
    cum_input_tokens_mean: points.cumInputTokens[i]!,
  };
};

/**
 * Line `i` of steps_by_index.csv, `csvLine(stepIndexRow(points, i))` byte for byte: a configuration's
 * three leading fields are quoted once, not once a row (a million-step import writes a million rows).
 */
export function stepIndexLine(points: StepPoints): (i: number) => string {
  const leads = points.configs.map((c) => {
    const { config_id, scenario, max_steps } = stepIndexRow(points, c.start);
    return csvLine({ config_id, scenario, max_steps }).slice(0, -1);
  });
  return (i) =>
    `${leads[points.configIndexOf(i)]},${points.step[i]},${points.calls[i]},${points.inputTokens[i]},${points.cumInputTokens[i]}\n`;
}

export const fitRow = (f: QuadraticFit) => ({
  scenario: f.scenario,
  a_tokens_per_step: f.a,
  b_tokens_per_step_squared: f.b,
  r_squared: f.r2,
  calls_fitted: f.points,
  max_step: f.max_step,
});

export const ratioRow = (r: StepRatio) => ({
  scenario: r.scenario,
  from_max_steps: r.from_max_steps,
  to_max_steps: r.to_max_steps,
  from_steps_mean: r.from_steps_mean,
  to_steps_mean: r.to_steps_mean,
  steps_ratio: r.steps_ratio,
  input_tokens_ratio: r.tokens_ratio,
  fit_input_tokens_ratio: r.fit_tokens_ratio ?? '',
});

export const savingRow = (s: StepLimitSaving) => ({
  scenario: s.scenario,
  config_id: s.config_id,
  max_steps: s.max_steps,
  highest_max_steps: s.highest_steps,
  cost_usd_mean: s.cost_usd_mean,
  highest_cost_usd_mean: s.highest_cost_usd_mean,
  cost_saved_fraction: s.cost_saved,
  runs: s.runs,
  successes_lost: s.successes_lost ?? '',
  highest_successes: s.highest_successes ?? '',
  highest_runs: s.highest_runs,
});

export const repriceRow = (r: RepricedConfig) => ({
  config_id: r.config_id,
  scenario: r.scenario,
  price_model: r.price_model,
  prompt_cache: r.prompt_cache ? (r.cache_estimated ? 'on_estimated' : 'on') : 'off',
  cost_usd_mean: r.cost_usd_mean,
  cost_usd_total: r.cost_usd_total,
  ratio_to_recorded: r.ratio_to_recorded,
});
