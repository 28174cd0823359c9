// One coding-agent session → one loopbench run: a StepRecord per model call, with the usage as the log
// recorded it — input, cache reads, cache writes (each at its TTL's price), output and reasoning —
// priced by the call's own recorded model, and a RunRecord for the whole. Calls go in one at a time,
// so memory is the running sums whatever the session's length. Pure: no files, no clock.
import type { Usage } from '../../contracts/chat.ts';
import type { RunRecord, StepRecord } from '../../contracts/records.ts';
import { RunLedger, usageCost } from '../../meter/ledger.ts';
import type { Price } from '../../contracts/settings.ts';
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

/** A logged call's usage as a provider reports it: the prompt holds the cache reads and writes. */
function usageOf(c: LoggedCall): Usage {
  const u = c.usage;
  return {
    prompt_tokens: u.input + u.cacheRead + u.cacheWrite5m + u.cacheWrite1h,
    completion_tokens: u.output,
    cached_tokens: u.cacheRead,
    cache_write_tokens: u.cacheWrite5m + u.cacheWrite1h,
    cache_write_1h_tokens: u.cacheWrite1h,
    reasoning_tokens: u.reasoning,
  };
}

export class SessionRunBuilder {
  private ledger: RunLedger | null = null;
  private config = '';
  private readonly unpriced = new Set<string>();
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
    return this.ledger?.runId ?? '';
  }

  /** The configuration key (scenario and model) the run is counted under, once its first call is in. */
  get configKey(): string {
    return this.config;
  }

  private begin(model: string): RunLedger {
    const scenario = this.o.scenario ?? this.o.format;
    this.config = `${scenario}\u0000${model}`;
    const s = importedSettings(scenario, model, this.o.price(model), this.o.repeatOf(this.config));
    return (this.ledger = new RunLedger(`${scenario}_${this.session.id}`, `${scenario} ${s.model}`, s));
  }

  add(c: LoggedCall): StepRecord {
    const ledger = this.ledger ?? this.begin(c.model);
    const price = this.o.price(c.model);
    if (!price && c.error === null) this.unpriced.add(c.model);
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
    const usage = usageOf(c);
    return ledger.record({
      step: ledger.totals.calls + 1,
      role: 'act',
      usage,
      // Each call at its own recorded model's rates (a session may change model).
      costUsd: price ? usageCost(price, usage) : 0,
      latencyMs: latency,
      elapsedMs: this.clock,
      ...actionFields(c.actions),
      error: c.error,
      model: c.model,
      // The call's time as the log gives it: the per-day spend tables split sessions by it.
      ...(at !== null ? { at: new Date(at).toISOString() } : {}),
    });
  }

  /** Calls so far. */
  get steps(): number {
    return this.ledger?.totals.calls ?? 0;
  }

  /** The run record, once every call is in; and the models the pricing table did not know. */
  result(): { run: RunRecord; unpriced: string[] } {
    const ledger = this.ledger!;
    const last = this.last!;
    const calls = ledger.totals.calls;
    const stop =
      last.error !== null
        ? {
            reason: 'error' as const,
            detail: `imported: the session ended on a failed call (${last.error})`,
            step: calls,
          }
        : last.actions.length === 0
          ? { reason: 'done' as const, detail: 'imported: the last call answered without a tool call', step: calls }
          : {
              reason: 'imported' as const,
              detail: 'imported: the session ends after a tool call; why it stopped is not logged',
              step: calls,
            };
    const s = this.session;
    const scenario = ledger.settings.scenario;
    const run = ledger.runRecord({
      // One model call per step, tools in between: a ReAct-shaped loop as far as the records go, so
      // what-if limits replay over it as over a built-in ReAct run.
      agent: 'react',
      stop,
      elapsedMs: this.clock,
      answer: stop.reason === 'done' ? last.text : null,
      success: null,
      started_at: s.startedAt ?? this.lastAt,
      finished_at: this.lastAt,
      extra: {
        imported: {
          format: this.o.format,
          session_id: s.id,
          agent: this.o.format,
          agent_version: s.version,
          ...(s.parent ? { parent_session: s.parent, parent_run: `${scenario}_${s.parent}` } : {}),
        },
      },
    });
    return { run, unpriced: [...this.unpriced] };
  }
}
