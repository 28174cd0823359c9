import type { Role } from './chat.ts';
import type { StopReason } from './stop-reason.ts';
import type { ConfigSettings, Settings } from './settings.ts';

/** The fields of a step its run's totals add up (meter/ledger.ts addStep). */
export type SummedStepField =
  | 'step'
  | 'round'
  | 'input_tokens'
  | 'output_tokens'
  | 'cached_tokens'
  | 'cache_write_tokens'
  | 'cache_write_1h_tokens'
  | 'reasoning_tokens'
  | 'cost_usd'
  | 'elapsed_ms';

/** One line of steps.jsonl: one model call. */
export interface StepRecord {
  run_id: string;
  config_id: string;
  scenario: string;
  step: number;
  round: number;
  role: Role;
  call: number;
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  cum_input_tokens: number;
  cum_output_tokens: number;
  cost_usd: number;
  cum_cost_usd: number;
  latency_ms: number;
  /** Run clock after this call (virtual for sims, wall clock otherwise). */
  elapsed_ms: number;
  retries: number;
  /** Tool names the answer called, `|`-joined; null for a final answer. */
  action: string | null;
  fingerprint: string | null;
  error: string | null;
  /** Input tokens written to a prompt cache (within input_tokens), where the provider reports them. */
  cache_write_tokens?: number;
  /**
   * `o200k_base`: the call's tokens are loopbench's o200k_base count standing in for the tokenizer of the
   * model it is priced as (a simulated model priced as claude-…): an estimate, not that model's count.
   */
  tokens_estimated?: 'o200k_base';
  /** Of those, the ones written to the 1-hour cache (billed above 5-minute writes), where the provider reports them. */
  cache_write_1h_tokens?: number;
  /** Output tokens spent on reasoning (within output_tokens), where the provider reports them. */
  reasoning_tokens?: number;
  /** The gateway got this answer and withheld it from the agent (a brake stopped the run on it): billed, never seen by the agent. */
  withheld?: true;
  /**
   * Where input/output/cached tokens come from (absent in records of the built-in loops and of
   * older gateways: the model's own usage). `provider`: the upstream's usage as it sent it;
   * `counted`: loopbench's own count, because the upstream's was missing or not usable;
   * `worst_case`: no answer arrived (deadline, dropped connection), so the call is billed at its
   * prompt plus the answer's limit it was sent with.
   */
  usage_source?: UsageSource;
  /** The upstream's usage as it sent it (null counts: missing or not a non-negative integer; null: no usage at all). Written when not taken as sent. */
  reported_usage?: ReportedUsage | null;
  /** loopbench's own count of the call, written beside reported_usage. */
  counted_usage?: { prompt_tokens: number; completion_tokens: number; cached_tokens: number };
  /** Why the metered usage is not the upstream's as sent, in words. */
  usage_note?: string;
  /**
   * The gateway lowered the answer's limit the agent asked for (`asked`: its max_tokens or
   * max_output_tokens, null when it sent none) to `sent`: the run's budget could not afford the asked one.
   */
  max_output_lowered?: { asked: number | null; sent: number };
  /**
   * The model the source names for this call, where each call is priced by its own (imported Claude Code and
   * Codex session logs: a session may change model). Absent: the run's model.
   */
  model?: string;
  /** When the call was made, as its source timestamps it (ISO 8601, UTC): imported logs and traces only. */
  at?: string;
  settings: Settings;
}

export type UsageSource = 'provider' | 'counted' | 'worst_case';

/** How the error of a request the gateway refused begins: a call that reached no model and took no step. */
export const REFUSED = 'refused by the gateway';

export const isRefused = (s: Pick<StepRecord, 'error'>): boolean => s.error?.startsWith(REFUSED) ?? false;

export interface ReportedUsage {
  prompt_tokens: number | null;
  completion_tokens: number | null;
  cached_tokens: number | null;
  /** Present when the upstream sent them. */
  cache_write_tokens?: number | null;
  reasoning_tokens?: number | null;
}

/** One line of runs.jsonl: one run, written when it ends (also when interrupted). */
export interface RunRecord {
  run_id: string;
  config_id: string;
  scenario: string;
  agent: string;
  settings: Settings;
  stop_reason: StopReason;
  stop_detail: string;
  stop_step: number;
  steps: number;
  calls: number;
  rounds: number;
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  /**
   * Input tokens written to a prompt cache and output tokens spent on reasoning, summed over the
   * steps (parts of input_tokens and output_tokens). Absent from records written before they were
   * kept: a report takes them from the run's steps.
   */
  cache_write_tokens?: number;
  /** Of the cache writes, the ones written to the 1-hour cache; absent: none (or written before they were kept). */
  cache_write_1h_tokens?: number;
  reasoning_tokens?: number;
  cost_usd: number;
  elapsed_ms: number;
  /** `o200k_base`: its calls' tokens are o200k_base estimates of another tokenizer's (see StepRecord). */
  tokens_estimated?: 'o200k_base';
  answer: string | null;
  /** Whether the final answer passed the scenario's check; null when the scenario has none. */
  success: boolean | null;
  started_at: string;
  finished_at: string;
  /** Extra, agent-specific outcome data (task queue state, reflection changes...). */
  extra?: Record<string, unknown>;
}

/**
 * What aggregation reads of a run: the record without its free text (detail, answer, timestamps).
 * Reports hold one per run, so a large sweep's report holds these, not whole records.
 */
export type RunFacts = Omit<RunRecord, 'stop_detail' | 'answer' | 'started_at' | 'finished_at' | 'settings'> & {
  /** The configuration's settings: without the per-run seed and repeat, so runs can share one object. */
  settings: ConfigSettings;
};

/** What RunRecord.extra.reflection holds: the stability report's raw material. */
export interface ReflectionRecord {
  mode: string;
  /** Critiques of answers, and of steps (every-step only). */
  critiques: number;
  step_critiques: number;
  /** Answers sent back by the critic. */
  reopens: number;
  /** Critiques without an APPROVE/REVISE verdict (taken as approval). */
  unparsed: number;
  /** An answer was accepted unreviewed because max_reflections reopens had been used. */
  max_reached: boolean;
  /** Whether each successive answer passed the scenario's check (null: no check). */
  answers: Array<boolean | null>;
}
