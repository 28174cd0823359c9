// The run ledger: the one place a run's calls become StepRecords and their sum its RunRecord, for
// every source of runs (the built-in loops' model caller, the gateway, importers, what-if replays,
// runs rebuilt from their steps). A new kind of token is added here once. Pure: no I/O, no clock.
import type { Role, Usage } from '../contracts/chat.ts';
import type { RunRecord, StepRecord, SummedStepField } from '../contracts/records.ts';
import type { Price, Settings } from '../contracts/settings.ts';
import type { Stop } from '../contracts/stop-reason.ts';
import { noTotals, type RunTotals } from '../contracts/run-totals.ts';
import { callCost } from './pricing.ts';
import { estimatedModels, O200K_ESTIMATE, tokensEstimated } from './token-estimate.ts';

/** USD for one call's usage as the provider reported it: every part at its own rate, at its prompt's tier. */
export const usageCost = (price: Price, u: Usage): number =>
  callCost(price, u.prompt_tokens, u.completion_tokens, u.cached_tokens, {
    cacheWrite: u.cache_write_tokens ?? 0,
    cacheWrite1h: u.cache_write_1h_tokens ?? 0,
    reasoning: u.reasoning_tokens ?? 0,
  });

/**
 * What a call's output beyond `maxOutput` cost: the call as billed less the same call cut at `maxOutput`
 * (its reasoning kept first, as it is generated first), both priced alike — so a long-context tier, or a
 * reasoning rate, prices the excess as it priced the call. 0 for a call within its limit.
 */
export function overrunCost(price: Price, u: Usage, maxOutput: number): number {
  if (u.completion_tokens <= maxOutput) return 0;
  const cut = { ...u, completion_tokens: maxOutput, reasoning_tokens: Math.min(u.reasoning_tokens ?? 0, maxOutput) };
  return usageCost(price, u) - usageCost(price, cut);
}

/**
 * Adds a step to `t`: the one sum of a run's totals, for a call metered now (`RunLedger.record`) and a step
 * read back or replayed. `elapsedMs` is the run clock after the step: a step read back has only its rounded
 * `elapsed_ms`; a call metered now keeps the clock unrounded, for the timeout brake.
 */
export function addStep(t: RunTotals, s: Pick<StepRecord, SummedStepField>, elapsedMs: number = s.elapsed_ms): void {
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
  t.elapsedMs = elapsedMs;
}

/** A run's summed figures as records spell them: the run record's, and a paused task queue's saved totals. */
export interface SummedFigures {
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
  /** Absent: none. */
  cache_write_1h_tokens?: number;
  reasoning_tokens: number;
  cost_usd: number;
}

/** The summed figures of `t`, in the order a run record writes them. */
export function summedFigures(t: RunTotals): SummedFigures {
  return {
    input_tokens: t.inputTokens,
    output_tokens: t.outputTokens,
    cached_tokens: t.cachedTokens,
    cache_write_tokens: t.cacheWriteTokens,
    ...(t.cacheWrite1hTokens ? { cache_write_1h_tokens: t.cacheWrite1hTokens } : {}),
    reasoning_tokens: t.reasoningTokens,
    cost_usd: t.costUsd,
  };
}

/**
 * What a paused run had spent, as its saved state spells it: a resumed run starts its totals from it.
 * Figures a state written before they were kept lacks count as 0.
 */
export type SavedTotals = Pick<RunTotals, 'rounds' | 'steps' | 'calls'> &
  Omit<SummedFigures, 'cache_write_tokens' | 'reasoning_tokens'> &
  Partial<Pick<SummedFigures, 'cache_write_tokens' | 'reasoning_tokens'>>;

/** What a run has spent, as a paused run's state saves it (its rounds apart): RunLedger.resumeFrom reads it back. */
export const savedTotals = (t: RunTotals): Omit<SavedTotals, 'rounds'> & SummedFigures => ({
  steps: t.steps,
  calls: t.calls,
  ...summedFigures(t),
});

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
  /** The model the source names for the call, where each call is priced by its own (StepRecord.model). */
  model?: string;
  /** When the call was made (ISO 8601, UTC), where the source timestamps it. */
  at?: string;
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
    const cost = c.costUsd ?? usageCost(price, u);
    // Its cumulative figures are the totals once it is added (by addStep, below).
    const s: StepRecord = {
      run_id: this.runId,
      config_id: this.configId,
      scenario: this.runSettings.scenario,
      step: c.step,
      round: t.rounds,
      role: c.role,
      call: t.calls + 1,
      input_tokens: u.prompt_tokens,
      output_tokens: u.completion_tokens,
      cached_tokens: u.cached_tokens,
      cum_input_tokens: t.inputTokens + u.prompt_tokens,
      cum_output_tokens: t.outputTokens + u.completion_tokens,
      cost_usd: cost,
      cum_cost_usd: t.costUsd + cost,
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
      ...(c.model !== undefined ? { model: c.model } : {}),
      ...(c.at !== undefined ? { at: c.at } : {}),
      settings: this.runSettings,
    };
    addStep(t, s, c.elapsedMs);
    return s;
  }

  /** A run continued from a saved state starts from what it had spent: only before its first call. */
  resumeFrom(saved: SavedTotals): void {
    if (this.totals.calls > 0) throw new Error('RunLedger.resumeFrom: the run has already made calls');
    Object.assign(this.totals, {
      rounds: saved.rounds,
      steps: saved.steps,
      calls: saved.calls,
      inputTokens: saved.input_tokens,
      outputTokens: saved.output_tokens,
      cachedTokens: saved.cached_tokens,
      cacheWriteTokens: saved.cache_write_tokens ?? 0,
      cacheWrite1hTokens: saved.cache_write_1h_tokens ?? 0,
      reasoningTokens: saved.reasoning_tokens ?? 0,
      costUsd: saved.cost_usd,
    });
  }

  /** A step already recorded (a loopbench export read back, a what-if replay): added to the totals as it is. */
  add(s: Pick<StepRecord, SummedStepField>): void {
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
      ...summedFigures(t),
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

/** The run record's fields that must equal the sum of its steps. */
export type SummedField = (typeof SUMMED)[number][0];

/** Equal up to the rounding of a sum taken in another order. */
const same = (a: number, b: number) => Math.abs(a - b) <= 1e-9 + 1e-9 * Math.abs(b);

/**
 * The first figure of `run` that its steps (all of them: `steps.calls === run.calls`) do not add up to,
 * or null. Fields a record does not carry (written before they were kept) are not compared.
 */
export function stepsDisagree(
  run: Partial<Pick<RunRecord, SummedField>>,
  steps: RunTotals,
): { field: string; recorded: number; summed: number } | null {
  for (const [field, total] of SUMMED) {
    const recorded = run[field];
    if (typeof recorded === 'number' && !same(recorded, steps[total])) return { field, recorded, summed: steps[total] };
  }
  return null;
}
