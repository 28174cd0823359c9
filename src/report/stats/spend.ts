// What the recorded calls cost per day and per model, over the calls that carry their own time (imported
// session logs and traces; a sweep's calls carry none): the figures ccusage's daily and per-model reports
// give, from the same calls. A call is filed under the day of its own time, so a session that spans
// midnight is split between two days; and under its own model, so a session that changes model is split too.
import type { StepRecord } from '../../contracts/records.ts';
import { DAY_MS, IsoStamps } from '../../contracts/iso-stamps.ts';
import { isTimeZone } from '../../contracts/time-zone.ts';
import { UsageError } from '../../contracts/errors.ts';
import { noTotals, type RunTotals } from '../../contracts/run-totals.ts';
import { addStep } from '../../meter/ledger.ts';

/** The sums of one day's or one model's calls; input_tokens includes the cached and cache-write tokens, as everywhere. */
export interface SpendSums {
  calls: number;
  input_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
  cache_write_1h_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  cost_usd: number;
}

/** One day: its calls' models (as recorded, in name order, comma-separated) and sums. */
export type DaySpend = { day: string; models: string } & SpendSums;
export type ModelSpend = { model: string } & SpendSums;

export interface Spend {
  /** The time zone days are taken in (an IANA name; `UTC` unless asked). */
  timezone: string;
  days: DaySpend[];
  models: ModelSpend[];
}

/** A day's or a model's sums as the tables spell them, from the ledger's totals (its addStep is the one sum of a call's figures). */
const sumsOf = (t: RunTotals): SpendSums => ({
  calls: t.calls,
  input_tokens: t.inputTokens,
  cached_tokens: t.cachedTokens,
  cache_write_tokens: t.cacheWriteTokens,
  cache_write_1h_tokens: t.cacheWrite1hTokens,
  output_tokens: t.outputTokens,
  reasoning_tokens: t.reasoningTokens,
  cost_usd: t.costUsd,
});

/** The sum of several rows' figures (the tables' total line). */
export function totalOf(rows: readonly SpendSums[]): SpendSums {
  const t = sumsOf(noTotals());
  for (const r of rows) for (const k of Object.keys(t) as Array<keyof SpendSums>) t[k] += r[k];
  return t;
}

/** A function giving a time's calendar day (YYYY-MM-DD) in `timezone`; an unknown zone is a UsageError. */
export function dayIn(timezone: string): (ms: number) => string {
  if (timezone === 'UTC') {
    // Called once per step: a day's text is made once per UTC day (a whole number of DAY_MS), not once per call.
    let day = NaN;
    let text = '';
    return (ms) => {
      const d = Math.floor(ms / DAY_MS);
      if (d !== day) {
        text = new Date(ms).toISOString().slice(0, 10);
        day = d;
      }
      return text;
    };
  }
  if (!isTimeZone(timezone))
    throw new UsageError(`--timezone ${timezone}: not a time zone this Node knows (an IANA name such as Europe/Paris)`);
  const f = new Intl.DateTimeFormat('en-US', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit' });
  return (ms) => {
    const p = Object.fromEntries(f.formatToParts(ms).map((x) => [x.type, x.value]));
    return `${p.year}-${p.month}-${p.day}`;
  };
}

export class SpendAccumulator {
  private readonly byDay = new Map<string, { totals: RunTotals; models: Set<string> }>();
  private readonly byModel = new Map<string, RunTotals>();
  private readonly dayOf: (ms: number) => string;
  /** Date.parse for the calls' times, mostly without it (a run's calls are stamped a day at a time). */
  private readonly stamps = new IsoStamps();
  /** The run model last met, and the name calls are filed under for it: a run's calls share it. */
  private lastModel = { named: '', filed: '' };

  constructor(readonly timezone = 'UTC') {
    this.dayOf = dayIn(timezone);
  }

  /** A call as the report prices it; one without a time is not counted. */
  add(s: StepRecord): void {
    if (s.at === undefined) return;
    const day = this.dayOf(this.stamps.parse(s.at) ?? NaN);
    const model = this.modelOf(s);
    let d = this.byDay.get(day);
    if (!d) this.byDay.set(day, (d = { totals: noTotals(), models: new Set() }));
    d.models.add(model);
    addStep(d.totals, s);
    let m = this.byModel.get(model);
    if (!m) this.byModel.set(model, (m = noTotals()));
    addStep(m, s);
  }

  /** The model a call is filed under: its own where its record names one, else its run's as the source named it. */
  private modelOf(s: StepRecord): string {
    const named = s.settings.model;
    if (named !== this.lastModel.named) this.lastModel = { named, filed: named.replace(/^imported:/, '') };
    return s.model ?? this.lastModel.filed;
  }

  /** Days in order; models by cost, the dearest first (ties by name). */
  spend(): Spend {
    const days = [...this.byDay]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([day, d]) => ({ day, models: [...d.models].sort().join(', '), ...sumsOf(d.totals) }));
    const models = [...this.byModel]
      .map(([model, t]) => ({ model, ...sumsOf(t) }))
      .sort((a, b) => b.cost_usd - a.cost_usd || (a.model < b.model ? -1 : 1));
    return { timezone: this.timezone, days, models };
  }
}
