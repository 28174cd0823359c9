// The run ledger: the one place a run's calls become StepRecords and their sum its RunRecord, for
// every source of runs (the built-in loops' model caller, the gateway, importers, what-if replays,
// runs rebuilt from their steps). A new kind of token is added here once. Pure: no I/O, no clock.
import type { Role, Usage } from '../contracts/chat.ts';
import type { RunRecord, StepRecord } from '../contracts/records.ts';
import type { Price, Settings } from '../contracts/settings.ts';
import type { Stop } from '../contracts/stop-reason.ts';
import { noTotals, type RunTotals } from '../contracts/run-totals.ts';
import { callCost } from './pricing.ts';
import { estimatedModels, O200K_ESTIMATE, tokensEstimated } from './token-estimate.ts';

/** Adds a step already recorded (read back, replayed) to `t` as it was recorded. */
export function addStep(t: RunTotals, s: StepRecord): void {
  t.calls++;
  t.steps = s.step;
  t.rounds = s.round;
  t.inputTokens += s.input_tokens;
  t.outputTokens += s.output_tokens;
  t.cachedTokens += s.cached_tokens;
  t.cacheWriteTokens += s.cache_write_tokens ?? 0;
  t.cacheWrite1hTokens += s.cache_write_1h_tokens ?? 0;
  t.reasoningTokens += s.reasoning_tokens ?? 0;
  t.costUsd += s.cost_usd;
  t.elapsedMs = s.elapsed_ms;
}

/** One call, as its source knows it. */
export interface LedgerCall {
  /** The agent step it belongs to (the current one for calls that are not agent steps). */
  step: number;
  role: Role;
  usage: Usage;
  /** Its cost as the source recorded it (an importer's); otherwise priced from `usage` at `price`. */
  costUsd?: number;
  /** Default: the run's price. */
  price?: Price;
  latencyMs: number;
  /** The run clock after the call. */
  elapsedMs: number;
  retries?: number;
  action?: string | null;
  fingerprint?: string | null;
  error?: string | null;
  /** What only this source records of a call (the gateway's usage provenance), written before the settings. */
  detail?: Pick<StepRecord, 'usage_source' | 'reported_usage' | 'counted_usage' | 'usage_note' | 'max_output_lowered'>;
}

/** How a run ended and what only its source knows; the totals come from the ledger. */
export interface RunEnd {
  agent: string;
  stop: Pick<Stop, 'reason' | 'detail' | 'step'>;
  elapsedMs: number;
  answer: string | null;
  success: boolean | null;
  started_at: string;
  finished_at: string;
  extra?: Record<string, unknown>;
}

export class RunLedger {
  /**
   * `totals` may be an object the caller shares (the brakes' RunState, which holds the totals):
   * the ledger is the only code that adds to it.
   */
  constructor(
    readonly runId: string,
    readonly configId: string,
    private runSettings: Settings,
    readonly totals: RunTotals = noTotals(),
  ) {}

  get settings(): Settings {
    return this.runSettings;
  }

  /** Prices the run as another model: only before it has billed anything (a refused call bills nothing at any price), so every billed call of a run has one price. */
  priceAs(price: Price): void {
    const t = this.totals;
    if (t.costUsd > 0 || t.inputTokens > 0 || t.outputTokens > 0)
      throw new Error('RunLedger.priceAs: the run has already billed calls');
    this.runSettings = { ...this.runSettings, price };
  }

  /** Adds a call to the run's totals; its StepRecord. */
  record(c: LedgerCall): StepRecord {
    const t = this.totals;
    const u = c.usage;
    const cacheWrite = u.cache_write_tokens ?? 0;
    const cacheWrite1h = u.cache_write_1h_tokens ?? 0;
    const reasoning = u.reasoning_tokens ?? 0;
    const price = c.price ?? this.runSettings.price;
    const cost =
      c.costUsd ??
      callCost(price, u.prompt_tokens, u.completion_tokens, u.cached_tokens, { cacheWrite, cacheWrite1h, reasoning });
    t.calls++;
    t.steps = c.step;
    t.inputTokens += u.prompt_tokens;
    t.outputTokens += u.completion_tokens;
    t.cachedTokens += u.cached_tokens;
    t.cacheWriteTokens += cacheWrite;
    t.cacheWrite1hTokens += cacheWrite1h;
    t.reasoningTokens += reasoning;
    t.costUsd += cost;
    t.elapsedMs = c.elapsedMs;
    return {
      run_id: this.runId,
      config_id: this.configId,
      scenario: this.runSettings.scenario,
      step: c.step,
      round: t.rounds,
      role: c.role,
      call: t.calls,
      input_tokens: u.prompt_tokens,
      output_tokens: u.completion_tokens,
      cached_tokens: u.cached_tokens,
      cum_input_tokens: t.inputTokens,
      cum_output_tokens: t.outputTokens,
      cost_usd: cost,
      cum_cost_usd: t.costUsd,
      latency_ms: Math.round(c.latencyMs),
      elapsed_ms: Math.round(c.elapsedMs),
      retries: c.retries ?? 0,
      action: c.action ?? null,
      fingerprint: c.fingerprint ?? null,
      error: c.error ?? null,
      ...(cacheWrite ? { cache_write_tokens: cacheWrite } : {}),
      ...(cacheWrite1h ? { cache_write_1h_tokens: cacheWrite1h } : {}),
      ...(reasoning ? { reasoning_tokens: reasoning } : {}),
      ...(tokensEstimated(this.runSettings.model, price.model) ? { tokens_estimated: O200K_ESTIMATE } : {}),
      ...c.detail,
      settings: this.runSettings,
    };
  }

  /** A step already recorded (a loopbench export read back, a what-if replay): added to the totals as it is. */
  add(s: StepRecord): void {
    addStep(this.totals, s);
  }

  /** The run's record: its totals from the ledger, the rest from its source. */
  runRecord(e: RunEnd): RunRecord {
    const t = this.totals;
    return {
      run_id: this.runId,
      config_id: this.configId,
      scenario: this.runSettings.scenario,
      agent: e.agent,
      settings: this.runSettings,
      stop_reason: e.stop.reason,
      stop_detail: e.stop.detail,
      stop_step: e.stop.step,
      steps: t.steps,
      calls: t.calls,
      rounds: t.rounds,
      input_tokens: t.inputTokens,
      output_tokens: t.outputTokens,
      cached_tokens: t.cachedTokens,
      cache_write_tokens: t.cacheWriteTokens,
      ...(t.cacheWrite1hTokens ? { cache_write_1h_tokens: t.cacheWrite1hTokens } : {}),
      reasoning_tokens: t.reasoningTokens,
      cost_usd: t.costUsd,
      elapsed_ms: Math.round(e.elapsedMs),
      ...(estimatedModels(this.runSettings).length ? { tokens_estimated: O200K_ESTIMATE } : {}),
      answer: e.answer,
      success: e.success,
      started_at: e.started_at,
      finished_at: e.finished_at,
      ...(e.extra ? { extra: e.extra } : {}),
    };
  }
}

/** Figures of a run record that must equal the sum of its steps, by the record's field name. */
const SUMMED = [
  ['input_tokens', 'inputTokens'],
  ['output_tokens', 'outputTokens'],
  ['cached_tokens', 'cachedTokens'],
  ['cache_write_tokens', 'cacheWriteTokens'],
  ['cache_write_1h_tokens', 'cacheWrite1hTokens'],
  ['reasoning_tokens', 'reasoningTokens'],
  ['cost_usd', 'costUsd'],
] as const satisfies ReadonlyArray<[keyof RunRecord, keyof RunTotals]>;

/** Equal up to the rounding of a sum taken in another order. */
const same = (a: number, b: number) => Math.abs(a - b) <= 1e-9 + 1e-9 * Math.abs(b);

/**
 * The first figure of `run` that its steps (all of them: `steps.calls === run.calls`) do not add up to,
 * or null. Fields a record does not carry (written before they were kept) are not compared.
 */
export function stepsDisagree(
  run: Partial<Pick<RunRecord, (typeof SUMMED)[number][0]>>,
  steps: RunTotals,
): { field: string; recorded: number; summed: number } | null {
  for (const [field, total] of SUMMED) {
    const recorded = run[field];
    if (typeof recorded === 'number' && !same(recorded, steps[total])) return { field, recorded, summed: steps[total] };
  }
  return null;
}
