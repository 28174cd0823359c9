// CSV reports: headers are snake_case with units in the names. Small tables go through csv-stringify;
// the per-step and per-run files, which grow with the sweep, are streamed row by row through
// `csvLine`, which writes exactly what csv-stringify writes for these rows (a test holds it to that)
// at a fraction of its per-field cost.
import { stringify } from 'csv-stringify/sync';
import { STOP_REASONS } from '../brakes/stop-reason.ts';
import type { RunRecord, StepRecord } from '../runner/records.ts';
import type { ConfigSummary } from './aggregate.ts';

const limitsColumns = (s: RunRecord['settings']) => ({
  max_steps: s.limits.max_steps ?? 'off',
  max_cost_usd: s.limits.max_cost_usd ?? 'off',
  timeout_s: s.limits.timeout_s ?? 'off',
  max_repeat: s.limits.max_repeat ?? 'off',
  max_tokens: s.limits.max_tokens ?? 'off',
  max_calls: s.limits.max_calls ?? 'off',
  max_rounds: s.limits.max_rounds ?? 'off',
});

export function toCsv(rows: Array<Record<string, unknown>>): string {
  if (rows.length === 0) return '';
  return stringify(rows, { header: true, columns: Object.keys(rows[0]!), cast: { boolean: (v) => String(v) } });
}

const NEEDS_QUOTES = /[",\r\n]/;

function csvField(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
  return NEEDS_QUOTES.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** One CSV line (RFC 4180 quoting, `\n`-terminated) of a row's values, or of its column names with `header`. */
export function csvLine(row: Record<string, unknown>, header = false): string {
  const cells: string[] = [];
  for (const key in row) cells.push(csvField(header ? key : row[key]));
  return `${cells.join(',')}\n`;
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
  };
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
    cost_usd: r.cost_usd,
    elapsed_ms: r.elapsed_ms,
    success: r.success ?? '',
    answer: r.answer ?? '',
  };
}

export function summaryRow(c: ConfigSummary): Record<string, unknown> {
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
  };
}
