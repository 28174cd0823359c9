// One run as the gateway sees it: the brakes' state, checked before each call is forwarded and
// after each answer, and one StepRecord per call. Calls of one run may be in flight at once, so a
// call is admitted against what is spent plus what the calls in flight could still spend: the
// budget holds at its worst case even then.
import { admitAction, firstStop, newRunState, type Action, type Brake, type RunState } from '../brakes/brake.ts';
import { brakesFor } from '../brakes/index.ts';
import { parseCall } from '../agents/actions.ts';
import type { CallLog } from '../agents/caller.ts';
import type { AssistantMessage, ChatMessage, FinishReason } from '../contracts/chat.ts';
import { stepActions } from '../contracts/fingerprint.ts';
import type { RunRecord, StepRecord } from '../contracts/records.ts';
import type { Price, Settings } from '../contracts/settings.ts';
import type { Stop } from '../contracts/stop-reason.ts';
import { callCost } from '../meter/pricing.ts';
import { RunLedger, type RunEnd } from '../meter/ledger.ts';
import { answerLimit, answerRoom } from './answer-limit.ts';
import type { Metered } from './usage-check.ts';

/** An admitted call: what it reserved against the brakes until its answer is metered. */
export interface Ticket {
  projectedCostUsd: number;
  projectedTokens: number;
  /** The prompt as counted, and the answer's limit it was sent with: its worst case. */
  inputTokens: number;
  maxOutputTokens: number;
  /** Set when a budget lowered the agent's limit: the request goes with `sent` (answer-limit.ts). */
  lowered?: { asked: number | null; sent: number };
  started: number;
}

export interface RunMeterOptions {
  /** Keep every call (what was sent, what came back) for the run's transcript; default false. */
  keepLog?: boolean;
}

/** A call billed nothing (the upstream refused it, or it never went out). */
const NOTHING: Metered = { usage: { prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0 }, source: 'provider' };

/** A call sent that got no answer to bill from: billed at its prompt and the whole answer it allowed. */
export function worstCase(t: Ticket, why: string): Metered {
  return {
    usage: { prompt_tokens: t.inputTokens, completion_tokens: t.maxOutputTokens, cached_tokens: 0 },
    source: 'worst_case',
    note: `${why}: billed at its worst case, the prompt and the ${t.maxOutputTokens.toLocaleString('en-US')} output tokens it allowed`,
  };
}

export class RunMeter {
  readonly state: RunState = newRunState();
  /** Adds each call to `state` and makes its StepRecord and the run's record. */
  readonly ledger: RunLedger;
  /** The brake that ended the run; every later call is refused with it. */
  stop: Stop | null = null;
  /** Every call, as sent and received: the run's transcript (empty unless keepLog). */
  readonly log: CallLog[] = [];
  readonly keepLog: boolean;
  private readonly brakes: Brake[];
  private readonly startedAt = performance.now();
  private inFlight = 0;
  private requests = 0;
  /** Calls admitted so far (refused requests are not). */
  private admitted = 0;
  /** The last call's error while no later call has been answered: a run that ends on it ended in error. */
  lastError: string | null = null;
  private reservedUsd = 0;
  private reservedTokens = 0;

  constructor(
    readonly runId: string,
    readonly configId: string,
    settings: Settings,
    private readonly onStep: (r: StepRecord) => void,
    o: RunMeterOptions = {},
  ) {
    this.ledger = new RunLedger(runId, configId, settings, this.state);
    this.brakes = brakesFor(settings.limits);
    this.keepLog = o.keepLog ?? false;
  }

  get settings(): Settings {
    return this.ledger.settings;
  }

  /**
   * Prices the run as another model (the standalone gateway: as the model its first call names,
   * when the table has a price for it). Only before its first call: every call of a run has one price.
   */
  priceAs(price: Price): void {
    if (this.beforeFirstCall) this.ledger.priceAs(price);
  }

  /** A request of the run is being handled (its body still arriving, its call in flight, its answer being sent). */
  get busy(): boolean {
    return this.requests > 0 || this.inFlight > 0;
  }

  /** Holds the run busy while `work` handles one of its requests, from its headers to its answer. */
  async handling(work: () => Promise<void>): Promise<void> {
    this.requests++;
    try {
      await work();
    } finally {
      this.requests--;
    }
  }

  /** No call admitted yet (refused ones billed nothing): the run's price may still be chosen by its first call. */
  get beforeFirstCall(): boolean {
    return this.admitted === 0;
  }

  elapsedMs(): number {
    return performance.now() - this.startedAt;
  }

  /** What is left of the run's --timeout, in ms (null: no timeout): a call in flight may take no longer. */
  remainingMs(): number | null {
    const t = this.settings.limits.timeout_s;
    return t === null ? null : Math.max(0, t * 1000 - this.elapsedMs());
  }

  /**
   * Before forwarding: a Ticket to go ahead, or the brake that refuses the call (and ends the run).
   * `asked` is the answer's limit the request sets (null: none); a budget may lower it (answer-limit.ts).
   */
  admit(inputTokens: number, asked: number | null): { ticket: Ticket } | { stop: Stop } {
    if (this.stop) return { stop: this.stop };
    const { price, limits, max_output_tokens: floor } = this.settings;
    const taken = {
      costUsd: this.state.costUsd + this.reservedUsd,
      tokens: this.state.inputTokens + this.state.outputTokens + this.reservedTokens,
    };
    const limit = answerLimit(asked, price, answerRoom(price, limits, taken, inputTokens), floor);
    const maxOutputTokens = limit.projected;
    const projectedCostUsd = callCost(this.settings.price, inputTokens, maxOutputTokens, 0);
    const s = this.state;
    s.elapsedMs = this.elapsedMs();
    // Calls in flight count as taken, at their worst case, until their answers are metered.
    const view: RunState = {
      ...s,
      steps: s.steps + this.inFlight,
      calls: s.calls + this.inFlight,
      costUsd: s.costUsd + this.reservedUsd,
      outputTokens: s.outputTokens + this.reservedTokens,
    };
    const stop = firstStop(this.brakes, (b) =>
      b.beforeCall?.(view, { role: 'act', inputTokens, maxOutputTokens, projectedCostUsd }),
    );
    if (stop) return { stop: (this.stop = stop) };
    this.inFlight++;
    this.admitted++;
    this.reservedUsd += projectedCostUsd;
    this.reservedTokens += inputTokens + maxOutputTokens;
    return {
      ticket: {
        projectedCostUsd,
        projectedTokens: inputTokens + maxOutputTokens,
        inputTokens,
        maxOutputTokens,
        ...(limit.lowered ? { lowered: limit.lowered } : {}),
        started: performance.now(),
      },
    };
  }

  private release(t: Ticket): void {
    this.inFlight--;
    this.reservedUsd -= t.projectedCostUsd;
    this.reservedTokens -= t.projectedTokens;
  }

  /** Ends the run with `stop` (unless something ended it first); later calls are refused with it. */
  end(stop: Stop): Stop {
    return (this.stop ??= stop);
  }

  /**
   * An answer came back: meter it, then, if the agent gets it, check its tool calls against the
   * action brakes (spin). A Stop means the answer must be withheld, so the action never runs; it
   * was billed all the same. An answer the agent hung up on is billed and its actions not counted.
   */
  settle(
    t: Ticket,
    metered: Metered,
    sent: ChatMessage[] | null,
    received: AssistantMessage,
    o: { delivered: boolean; finish?: FinishReason; error?: string } = { delivered: true },
  ): Stop | null {
    this.release(t);
    this.lastError = o.error ?? null;
    // Fingerprinted as the built-in loops do, so spin means the same thing for both.
    const actions: Action[] = o.delivered ? (received.tool_calls ?? []).map(parseCall) : [];
    const step = this.account(t, metered, actions, o.error ?? null);
    this.keep({
      sent,
      received,
      usage: metered.usage,
      error: o.error ?? null,
      ...(o.finish ? { finish_reason: o.finish } : {}),
    });
    if (metered.overReported)
      this.end({
        reason: 'error',
        detail: `the upstream billed more than the request allowed at step ${this.state.steps} (${metered.overReported}); the run's further calls were refused`,
        step: this.state.steps,
      });
    const s = this.state;
    let stop: Stop | null = null;
    for (const a of actions) {
      stop = admitAction(this.brakes, s, a);
      if (stop) break;
    }
    // An answer a brake stops is withheld from the agent: billed (the provider answered it), never seen.
    this.onStep(stop ? { ...step, withheld: true } : step);
    if (stop) this.end(stop);
    return stop;
  }

  /** The call failed: recorded with its error, billed as `billed` says (nothing, by default). */
  fail(t: Ticket, error: string, sent: ChatMessage[] | null, billed: Metered = NOTHING): void {
    this.release(t);
    this.lastError = error;
    this.onStep(this.account(t, billed, [], error));
    this.keep({ sent, received: null, usage: billed === NOTHING ? null : billed.usage, error });
  }

  /**
   * A request the gateway refused (unreadable, unpriced, not for this run's upstream, or a brake's):
   * recorded as a call with its error and no usage. It reached no model, so it takes no step.
   */
  refused(error: string): void {
    this.lastError = error;
    this.onStep(
      this.ledger.record({
        step: this.state.steps,
        role: 'act',
        usage: NOTHING.usage,
        latencyMs: 0,
        elapsedMs: this.elapsedMs(),
        error,
      }),
    );
    this.keep({ sent: null, received: null, usage: null, error });
  }

  private keep(
    c: Pick<CallLog, 'received' | 'usage' | 'error' | 'finish_reason'> & { sent: ChatMessage[] | null },
  ): void {
    if (this.keepLog)
      this.log.push({
        call: this.state.calls,
        step: this.state.steps,
        round: 0,
        role: 'act',
        tools: null,
        ...c,
        sent: c.sent ?? [],
      });
  }

  /** Adds a call to the run's totals; its StepRecord, for the caller to hand on. */
  private account(t: Ticket, m: Metered, actions: Action[], error: string | null): StepRecord {
    return this.ledger.record({
      step: this.state.steps + 1,
      role: 'act',
      usage: m.usage,
      latencyMs: performance.now() - t.started,
      elapsedMs: this.elapsedMs(),
      ...stepActions(actions),
      error,
      detail: {
        ...(m === NOTHING ? {} : { usage_source: m.source }),
        ...(m.reported !== undefined ? { reported_usage: m.reported } : {}),
        ...(m.counted ? { counted_usage: m.counted } : {}),
        ...(m.note ? { usage_note: m.note } : {}),
        ...(t.lowered ? { max_output_lowered: t.lowered } : {}),
      },
    });
  }
}

/** The run record of a metered run: its totals from the meter's ledger, the rest from the caller. */
export function meteredRunRecord(
  meter: RunMeter,
  r: Pick<RunEnd, 'stop' | 'answer' | 'success' | 'started_at'>,
): RunRecord {
  return meter.ledger.runRecord({
    agent: 'external',
    ...r,
    elapsedMs: meter.elapsedMs(),
    finished_at: new Date().toISOString(),
  });
}
