// One coding-agent session → one loopbench run: a StepRecord per model call, with the usage as the log
// recorded it — input, cache reads, cache writes (each at its TTL's price), output and reasoning —
// priced by the call's own recorded model, and a RunRecord for the whole. Calls go in one at a time,
// so memory is the running sums whatever the session's length. Pure: no files, no clock.
import type { RunRecord, StepRecord } from '../../contracts/records.ts';
import type { Price, Settings } from '../../contracts/settings.ts';
import { callCost } from '../../meter/pricing.ts';
import { importedSettings } from '../from-atif.ts';
import { actionFields, type LoggedCall } from './logged-call.ts';

export type LogFormat = 'claude-code' | 'codex';

/** A session as its log names it. */
export interface LoggedSession {
  /** The run's key: the session id (a sub-agent's: `<session>-agent-<id>`). */
  id: string;
  /** The session that ran this one (a sub-agent's parent), or null. */
  parent: string | null;
  /** The CLI's version that wrote the log. */
  version: string | null;
  /** The first time the log gives for the session. */
  startedAt: string | null;
}

export interface SessionRunOptions {
  format: LogFormat;
  /** The scenario every run is filed under (default: the CLI's name). */
  scenario?: string;
  /** A model's price (undefined: not in the table, billed $0 and said once). */
  price: (model: string) => Price | undefined;
  /** The 1-based repeat index of a configuration's next run. */
  repeatOf: (config: string) => number;
}

const ms = (t: string | null): number | null => {
  const v = t ? Date.parse(t) : NaN;
  return Number.isFinite(v) ? v : null;
};

/**
 * USD for one logged call. callCost bills 5-minute cache writes at the table's cache-write rate; a
 * 1-hour write costs 2× input (Anthropic's published rate, which the pricing table has no field for),
 * so the 1-hour part is added here above the input rate callCost bills it at.
 */
export function loggedCost(price: Price, c: LoggedCall): number {
  const u = c.usage;
  const input = u.input + u.cacheRead + u.cacheWrite5m + u.cacheWrite1h;
  return callCost(price, input, u.output, u.cacheRead, { cacheWrite: u.cacheWrite5m, reasoning: u.reasoning }) + (u.cacheWrite1h * price.input_per_1m) / 1e6;
}

export class SessionRunBuilder {
  private settings: Settings | null = null;
  private runId = '';
  private configId = '';
  private config = '';
  private readonly unpriced = new Set<string>();
  private calls = 0;
  private cumIn = 0;
  private cumOut = 0;
  private cached = 0;
  private cost = 0;
  private start: number | null;
  private prev: number | null;
  private clock = 0;
  private last: LoggedCall | null = null;
  private lastAt = '';

  constructor(
    private readonly session: LoggedSession,
    private readonly o: SessionRunOptions,
  ) {
    this.start = ms(session.startedAt);
    this.prev = this.start;
  }

  get id(): string {
    return this.runId;
  }

  /** The configuration key (scenario and model) the run is counted under, once its first call is in. */
  get configKey(): string {
    return this.config;
  }

  private begin(model: string): Settings {
    const scenario = this.o.scenario ?? this.o.format;
    this.config = `${scenario}\u0000${model}`;
    const s = importedSettings(scenario, model, this.o.price(model), this.o.repeatOf(this.config));
    this.runId = `${scenario}_${this.session.id}`;
    this.configId = `${scenario} ${s.model}`;
    return (this.settings = s);
  }

  add(c: LoggedCall): StepRecord {
    const settings = this.settings ?? this.begin(c.model);
    const price = this.o.price(c.model);
    if (!price && c.error === null) this.unpriced.add(c.model);
    const u = c.usage;
    const input = u.input + u.cacheRead + u.cacheWrite5m + u.cacheWrite1h;
    const cost = price ? loggedCost(price, c) : 0;
    this.calls++;
    this.cumIn += input;
    this.cumOut += u.output;
    this.cached += u.cacheRead;
    this.cost += cost;
    const at = ms(c.at);
    let latency = 0;
    if (at !== null) {
      this.start ??= at;
      latency = this.prev === null ? 0 : Math.max(0, at - this.prev);
      this.prev = Math.max(this.prev ?? at, at);
      this.clock = Math.max(this.clock, at - this.start);
    }
    if (c.at) this.lastAt = c.at;
    this.last = c;
    return {
      run_id: this.runId,
      config_id: this.configId,
      scenario: settings.scenario,
      step: this.calls,
      round: 0,
      role: 'act',
      call: this.calls,
      input_tokens: input,
      output_tokens: u.output,
      cached_tokens: u.cacheRead,
      cum_input_tokens: this.cumIn,
      cum_output_tokens: this.cumOut,
      cost_usd: cost,
      cum_cost_usd: this.cost,
      latency_ms: latency,
      elapsed_ms: this.clock,
      retries: 0,
      ...actionFields(c.actions),
      error: c.error,
      cache_write_tokens: u.cacheWrite5m + u.cacheWrite1h,
      reasoning_tokens: u.reasoning,
      settings,
    };
  }

  /** Calls so far. */
  get steps(): number {
    return this.calls;
  }

  /** The run record, once every call is in; and the models the pricing table did not know. */
  result(): { run: RunRecord; unpriced: string[] } {
    const settings = this.settings!;
    const last = this.last!;
    const stop =
      last.error !== null
        ? { reason: 'error' as const, detail: `imported: the session ended on a failed call (${last.error})` }
        : last.actions.length === 0
          ? { reason: 'done' as const, detail: 'imported: the last call answered without a tool call' }
          : { reason: 'imported' as const, detail: 'imported: the session ends after a tool call; why it stopped is not logged' };
    const s = this.session;
    const run: RunRecord = {
      run_id: this.runId,
      config_id: this.configId,
      scenario: settings.scenario,
      // One model call per step, tools in between: a ReAct-shaped loop as far as the records go, so
      // what-if limits replay over it as over a built-in ReAct run.
      agent: 'react',
      settings,
      stop_reason: stop.reason,
      stop_detail: stop.detail,
      stop_step: this.calls,
      steps: this.calls,
      calls: this.calls,
      rounds: 0,
      input_tokens: this.cumIn,
      output_tokens: this.cumOut,
      cached_tokens: this.cached,
      cost_usd: this.cost,
      elapsed_ms: this.clock,
      answer: stop.reason === 'done' ? last.text : null,
      success: null,
      started_at: s.startedAt ?? this.lastAt,
      finished_at: this.lastAt,
      extra: { imported: { format: this.o.format, session_id: s.id, agent: this.o.format, agent_version: s.version, ...(s.parent ? { parent_session: s.parent, parent_run: `${settings.scenario}_${s.parent}` } : {}) } },
    };
    return { run, unpriced: [...this.unpriced] };
  }
}
