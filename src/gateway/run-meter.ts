// One run as the gateway sees it: the brakes' state, checked before each call is forwarded and
// after each answer, and one StepRecord per call. Calls of one run may be in flight at once, so a
// call is admitted against what is spent plus what the calls in flight could still spend: the
// budget holds at its worst case even then.
import { firstStop, type Action, type Brake, type RunState } from '../brakes/brake.ts';
import { brakesFor } from '../brakes/index.ts';
import { parseCall } from '../agents/actions.ts';
import type { CallLog } from '../agents/caller.ts';
import type { AssistantMessage, ChatMessage, Usage } from '../contracts/chat.ts';
import type { RunRecord, StepRecord } from '../contracts/records.ts';
import type { Settings } from '../contracts/settings.ts';
import type { Stop } from '../contracts/stop-reason.ts';
import { callCost } from '../meter/pricing.ts';

/** An admitted call: what it reserved against the brakes until its answer is metered. */
export interface Ticket {
  projectedCostUsd: number;
  projectedTokens: number;
  started: number;
}

export class RunMeter {
  readonly state: RunState = { steps: 0, calls: 0, rounds: 0, inputTokens: 0, outputTokens: 0, cachedTokens: 0, costUsd: 0, elapsedMs: 0, repeats: new Map(), history: [] };
  /** The brake that ended the run; every later call is refused with it. */
  stop: Stop | null = null;
  /** Every call, as sent and received: the run's transcript. */
  readonly log: CallLog[] = [];
  private readonly brakes: Brake[];
  private readonly startedAt = performance.now();
  private inFlight = 0;
  private reservedUsd = 0;
  private reservedTokens = 0;

  constructor(
    readonly runId: string,
    readonly configId: string,
    readonly settings: Settings,
    private readonly onStep: (r: StepRecord) => void,
  ) {
    this.brakes = brakesFor(settings.limits);
  }

  elapsedMs(): number {
    return performance.now() - this.startedAt;
  }

  /** Before forwarding: a Ticket to go ahead, or the brake that refuses the call (and ends the run). */
  admit(inputTokens: number, maxOutputTokens: number): { ticket: Ticket } | { stop: Stop } {
    if (this.stop) return { stop: this.stop };
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
    const stop = firstStop(this.brakes, (b) => b.beforeCall?.(view, { role: 'act', inputTokens, maxOutputTokens, projectedCostUsd }));
    if (stop) return { stop: (this.stop = stop) };
    this.inFlight++;
    this.reservedUsd += projectedCostUsd;
    this.reservedTokens += inputTokens + maxOutputTokens;
    return { ticket: { projectedCostUsd, projectedTokens: inputTokens + maxOutputTokens, started: performance.now() } };
  }

  private release(t: Ticket): void {
    this.inFlight--;
    this.reservedUsd -= t.projectedCostUsd;
    this.reservedTokens -= t.projectedTokens;
  }

  /**
   * An answer came back: meter it, then check its tool calls against the action brakes (spin). A
   * Stop means the answer must be withheld, so the action never runs; it was billed all the same.
   */
  settle(t: Ticket, usage: Usage, sent: ChatMessage[], received: AssistantMessage): Stop | null {
    this.release(t);
    // Fingerprinted as the built-in loops do, so spin means the same thing for both.
    const actions: Action[] = (received.tool_calls ?? []).map(parseCall);
    this.record(usage, performance.now() - t.started, actions, null);
    this.log.push({ call: this.state.calls, step: this.state.steps, round: 0, role: 'act', sent, tools: null, received, usage, error: null });
    const s = this.state;
    for (const a of actions) {
      const stop = firstStop(this.brakes, (b) => b.beforeAction?.(s, a));
      if (stop) return (this.stop = stop);
      s.repeats.set(a.fingerprint, (s.repeats.get(a.fingerprint) ?? 0) + 1);
    }
    return null;
  }

  /** The call failed upstream (or the connection did): recorded with its error, nothing billed. */
  fail(t: Ticket, error: string, sent: ChatMessage[]): void {
    this.release(t);
    this.record({ prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0 }, performance.now() - t.started, [], error);
    this.log.push({ call: this.state.calls, step: this.state.steps, round: 0, role: 'act', sent, tools: null, received: null, usage: null, error });
  }

  private record(usage: Usage, latencyMs: number, actions: Action[], error: string | null): void {
    const s = this.state;
    const cost = callCost(this.settings.price, usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens);
    s.calls++;
    s.steps++;
    s.inputTokens += usage.prompt_tokens;
    s.outputTokens += usage.completion_tokens;
    s.cachedTokens += usage.cached_tokens;
    s.costUsd += cost;
    s.elapsedMs = this.elapsedMs();
    this.onStep({
      run_id: this.runId,
      config_id: this.configId,
      scenario: this.settings.scenario,
      step: s.steps,
      round: 0,
      role: 'act',
      call: s.calls,
      input_tokens: usage.prompt_tokens,
      output_tokens: usage.completion_tokens,
      cached_tokens: usage.cached_tokens,
      cum_input_tokens: s.inputTokens,
      cum_output_tokens: s.outputTokens,
      cost_usd: cost,
      cum_cost_usd: s.costUsd,
      latency_ms: Math.round(latencyMs),
      elapsed_ms: Math.round(s.elapsedMs),
      retries: 0,
      action: actions.length ? actions.map((a) => a.tool).join('|') : null,
      fingerprint: actions.length ? actions.map((a) => a.fingerprint).join('|') : null,
      error,
      settings: this.settings,
    });
  }
}

/** The run record of a metered run: its totals from the meter, the rest from the caller. */
export function meteredRunRecord(meter: RunMeter, r: Pick<RunRecord, 'stop_reason' | 'stop_detail' | 'stop_step' | 'answer' | 'success' | 'started_at'>): RunRecord {
  const s = meter.state;
  return {
    run_id: meter.runId,
    config_id: meter.configId,
    scenario: meter.settings.scenario,
    agent: 'external',
    settings: meter.settings,
    stop_reason: r.stop_reason,
    stop_detail: r.stop_detail,
    stop_step: r.stop_step,
    steps: s.steps,
    calls: s.calls,
    rounds: 0,
    input_tokens: s.inputTokens,
    output_tokens: s.outputTokens,
    cached_tokens: s.cachedTokens,
    cost_usd: s.costUsd,
    elapsed_ms: Math.round(meter.elapsedMs()),
    answer: r.answer,
    success: r.success,
    started_at: r.started_at,
    finished_at: new Date().toISOString(),
  };
}
