// The one entry point for every model call an agent makes: brakes before the call, the call,
// metering after it, and one StepRecord per call. Agent loops never call a ChatModel directly.
import type { Action, Brake, RunState } from '../brakes/brake.ts';
import { admitAction, firstStop, isAgentStep, newRunState } from '../brakes/brake.ts';
import type { Stop } from '../contracts/stop-reason.ts';
import {
  ModelError,
  type ReplayMiss,
  type ChatMessage,
  type ChatModel,
  type ChatResult,
  type Role,
  type ToolSpec,
} from '../contracts/chat.ts';
import { callCost } from '../meter/pricing.ts';
import { overrunCost, RunLedger, type SavedTotals } from '../meter/ledger.ts';
import type { TokenCounter } from '../meter/tokens.ts';
import type { CallSlotPool } from '../contracts/call-slots.ts';
import type { SpendGuard } from '../contracts/sweep-state.ts';
import type { Clock } from '../contracts/clock.ts';
import { turnIfDue } from '../contracts/event-loop.ts';
import type { StepRecord } from '../contracts/records.ts';
import type { Settings } from '../contracts/settings.ts';

export interface CallerEnv {
  runId: string;
  configId: string;
  settings: Settings;
  model: ChatModel;
  /** Models for particular roles (the task queue's `models:`); other roles use `model`. */
  roleModels?: Partial<Record<Role, ChatModel>>;
  counter: TokenCounter;
  brakes: readonly Brake[];
  clock: Clock;
  onStep: (record: StepRecord) => void;
  signal?: AbortSignal;
  /** The sweep's shared call slots (`--concurrency` against a real provider): held for each call. */
  slots?: CallSlotPool;
  /** The sweep's spend cap, when there is one: told of an overrun, and halting every run after one. */
  spend?: SpendGuard;
  /** Keep every call (what was sent, what came back) for the transcript; default true. Without it a
   *  run holds nothing per call, and no copy of the growing conversation is made per call. */
  keepLog?: boolean;
}

export type CallOutcome = { ok: true; result: ChatResult } | { ok: false; stop: Stop };

/** One billed call as the transcript keeps it: what was sent and what came back. */
export interface CallLog {
  call: number;
  step: number;
  round: number;
  role: Role;
  sent: ChatMessage[];
  /** The tool definitions sent with the call (billed as input too). */
  tools: ToolSpec[] | null;
  received: ChatMessage | null;
  usage: ChatResult['usage'] | null;
  /** `length`: the answer was cut at max_tokens (absent when the model did not say). */
  finish_reason?: ChatResult['finishReason'];
  error: string | null;
}

/** Answers longer than the max_tokens they were asked for: a misbehaving provider, recorded per run. */
export interface OutputOverrun {
  calls: number;
  /** Output tokens billed beyond max_tokens, summed over those calls. */
  tokens: number;
  /** What those extra tokens cost, at the rates their calls were billed at (a long-context tier too): spend the budget brake's worst case did not foresee. */
  cost_usd: number;
  first_step: number;
  largest_output_tokens: number;
  max_output_tokens: number;
}

export class ModelCaller {
  readonly state: RunState = newRunState();
  /** Adds each call to `state` and makes its StepRecord (and, at the end, the run's record). */
  readonly ledger: RunLedger;
  /** Every call made, for the run's transcript (empty when the env says not to keep it). */
  readonly log: CallLog[] = [];
  /** Set once a model returns more output than max_tokens: the run's worst case did not hold. */
  overrun: OutputOverrun | null = null;
  /** Set when a replayed call was not in the cassette: the run stopped having measured nothing further. */
  replayMiss: ReplayMiss | null = null;

  constructor(private readonly env: CallerEnv) {
    this.ledger = new RunLedger(env.runId, env.configId, env.settings, this.state);
  }

  get settings(): Settings {
    return this.env.settings;
  }

  /** Tokens a request would be billed as input, counted before it is sent (for context decisions). */
  promptTokens(messages: ChatMessage[], tools?: ToolSpec[]): number {
    return this.env.counter.prompt(messages, tools);
  }

  /**
   * A run continued from a saved state (`--resume-state`) starts from what it had already spent, so
   * its brakes hold across the pause. Only before the first call.
   */
  resumeFrom(saved: SavedTotals): void {
    this.ledger.resumeFrom(saved);
  }

  /** Round-based agents ask before each round; null means the round may start (and is counted). */
  startRound(): Stop | null {
    const stop = firstStop(this.env.brakes, (b) => b.beforeRound?.(this.state));
    if (!stop) this.state.rounds++;
    return stop;
  }

  private priceOf(role: Role) {
    return this.env.settings.role_prices?.[role] ?? this.env.settings.price;
  }

  /** Check the brakes, make the call, meter it. A refused or failed call ends the run with its Stop. */
  async call(
    role: Role,
    messages: ChatMessage[],
    tools?: ToolSpec[],
    action?: (m: ChatResult) => Pick<StepRecord, 'action' | 'fingerprint'>,
  ): Promise<CallOutcome> {
    const { env, state } = this;
    const s = env.settings;
    // Lets a Ctrl-C in before the call, even in a simulated sweep that never waits otherwise.
    const turn = turnIfDue();
    if (turn) await turn;
    state.elapsedMs = env.clock.elapsedMs();
    if (env.signal?.aborted) return this.notStarted();
    const inputTokens = env.counter.prompt(messages, tools);
    const pending = {
      role,
      inputTokens,
      maxOutputTokens: s.max_output_tokens,
      projectedCostUsd: callCost(this.priceOf(role), inputTokens, s.max_output_tokens, 0),
    };
    const stop = firstStop(env.brakes, (b) => b.beforeCall?.(state, pending));
    if (stop) return { ok: false, stop };

    const step = isAgentStep(role) ? state.steps + 1 : state.steps;
    const model = env.roleModels?.[role] ?? env.model;
    const request = { model: model.id, messages, tools, max_tokens: s.max_output_tokens, seed: s.seed };
    const context = { runId: env.runId, scenario: s.scenario, step, round: state.rounds, role, signal: env.signal };
    if (env.slots) {
      const queued = performance.now();
      const granted = await env.slots.acquire(env.signal);
      env.clock.exclude(performance.now() - queued);
      if (!granted) return this.notStarted();
    }
    if (env.spend?.halted) {
      env.slots?.release();
      return {
        ok: false,
        stop: {
          reason: 'error',
          detail: `not continued at step ${state.steps}: a model in this sweep returned more output than max_tokens, so the spend cap stopped every further call`,
          step: state.steps,
        },
      };
    }
    let result: ChatResult;
    try {
      result = await model.complete(request, context);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      const retries = e instanceof ModelError ? e.retries : 0;
      if (e instanceof ModelError && e.replayMiss) this.replayMiss = e.replayMiss;
      this.emit(role, step, { prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0 }, 0, retries, null, message);
      this.keep(step, role, messages, tools, null, message);
      const interrupted = env.signal?.aborted;
      return {
        ok: false,
        stop: interrupted
          ? { reason: 'interrupted', detail: `interrupted during model call at step ${step}`, step }
          : { reason: 'error', detail: `model call failed at step ${step}: ${message}`, step },
      };
    } finally {
      env.slots?.release();
    }
    env.clock.advance(result.latencyMs);
    this.noteOverrun(role, step, result.usage);
    this.emit(role, step, result.usage, result.latencyMs, result.retries, action?.(result) ?? null, null);
    this.keep(step, role, messages, tools, result, null);
    return { ok: true, result };
  }

  private noteOverrun(role: Role, step: number, usage: ChatResult['usage']): void {
    const max = this.env.settings.max_output_tokens;
    const output = usage.completion_tokens;
    if (output <= max) return;
    const o = (this.overrun ??= {
      calls: 0,
      tokens: 0,
      cost_usd: 0,
      first_step: step,
      largest_output_tokens: 0,
      max_output_tokens: max,
    });
    o.calls++;
    o.tokens += output - max;
    o.cost_usd += overrunCost(this.priceOf(role), usage, max);
    o.largest_output_tokens = Math.max(o.largest_output_tokens, output);
    this.env.spend?.noteOverrun();
  }

  /** Ctrl-C came before this call was sent. */
  private notStarted(): CallOutcome {
    return {
      ok: false,
      stop: { reason: 'interrupted', detail: 'interrupted before the next model call', step: this.state.steps },
    };
  }

  /**
   * The call's transcript entry (its messages copied: the agent's array grows on), built only when the run
   * keeps one: a sweep without transcripts made and dropped it, spread and all, every call.
   */
  private keep(
    step: number,
    role: Role,
    messages: ChatMessage[],
    tools: ToolSpec[] | undefined,
    result: ChatResult | null,
    error: string | null,
  ): void {
    if (!(this.env.keepLog ?? true)) return;
    this.log.push({
      call: this.state.calls,
      step,
      round: this.state.rounds,
      role,
      sent: messages.slice(),
      tools: tools ?? null,
      received: result?.message ?? null,
      usage: result?.usage ?? null,
      ...(result?.finishReason ? { finish_reason: result.finishReason } : {}),
      error,
    });
  }

  /** Spin and other action brakes; counts the action when it is allowed to run. */
  checkAction(action: Action): Stop | null {
    return admitAction(this.env.brakes, this.state, action);
  }

  /** What an executed action returned, for the detectors that compare outcomes. */
  observed(action: Action, observation: string, failure: string | null): void {
    this.state.history.push({
      step: this.state.steps,
      tool: action.tool,
      fingerprint: action.fingerprint,
      argsJson: action.argsJson,
      observation,
      failure,
    });
  }

  /** Meters a call (the ledger adds it to the run's totals) and hands on its StepRecord. */
  private emit(
    role: Role,
    step: number,
    usage: ChatResult['usage'],
    latencyMs: number,
    retries: number,
    action: Pick<StepRecord, 'action' | 'fingerprint'> | null,
    error: string | null,
  ): void {
    const { env } = this;
    env.onStep(
      this.ledger.record({
        step,
        role,
        usage,
        price: this.priceOf(role),
        latencyMs,
        elapsedMs: env.clock.elapsedMs(),
        retries,
        action: action?.action ?? null,
        fingerprint: action?.fingerprint ?? null,
        error,
      }),
    );
  }
}
