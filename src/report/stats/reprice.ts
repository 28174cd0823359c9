// Re-pricing without re-running: the recorded tokens under other models' rates, with and without
// prompt caching, so a review can ask "what would this loop cost on model X" for free.
import { overrunCost } from '../../meter/ledger.ts';
import { callCost } from '../../meter/pricing.ts';
import { billableCachedTokens } from '../../meter/prompt-cache.ts';
import type { RunFacts, StepRecord } from '../../contracts/records.ts';
import type { Price } from '../../contracts/settings.ts';
import { groupBy } from '../data/group.ts';

/**
 * Per run: the input tokens a provider would bill at the cached rate. A run recorded with caching on
 * has the real figure; otherwise, with the full history re-sent, each call's prompt starts with the
 * previous call's prompt (same role), so that prefix is what the cache would have hit — an estimate.
 * With `keepPrefixes` (a what-if), it also keeps each run's running total call by call: a derived run is
 * a prefix of its recorded run, so its estimate is the total after its own last call.
 */
export class CachedTokensEstimator {
  private readonly prevInput = new Map<string, number>();
  private readonly cached = new Map<string, number>();
  private readonly prefixes = new Map<string, number[]>();
  /** The last step's run and role, and their key: made (and hashed) once for a run's steps in a row, not per step. */
  private last: { runId: string; role: string; key: string } | null = null;

  constructor(private readonly keepPrefixes = false) {}

  /** Adds a step (a run's steps in order); the input tokens of it a cache would read. */
  add(r: StepRecord): number {
    let hit = 0;
    if (r.settings.prompt_cache) hit = r.cached_tokens;
    else if (r.settings.context === 'full') {
      if (this.last?.runId !== r.run_id || this.last.role !== r.role)
        this.last = { runId: r.run_id, role: r.role, key: `${r.run_id}\u0000${r.role}` };
      const key = this.last.key;
      hit = Math.min(r.input_tokens, billableCachedTokens(this.prevInput.get(key) ?? 0));
      this.prevInput.set(key, r.input_tokens);
    }
    const total = (this.cached.get(r.run_id) ?? 0) + hit;
    this.cached.set(r.run_id, total);
    if (this.keepPrefixes) {
      let p = this.prefixes.get(r.run_id);
      if (!p) this.prefixes.set(r.run_id, (p = []));
      p.push(total);
    }
    return hit;
  }

  forRun(runId: string): number {
    return this.cached.get(runId) ?? 0;
  }

  /** The estimate over a run's first `calls` calls (kept only with `keepPrefixes`). */
  forPrefix(runId: string, calls: number): number {
    if (calls <= 0) return 0;
    const p = this.prefixes.get(runId);
    if (!p) throw new Error(`no step records kept for run ${runId}`);
    return p[Math.min(calls, p.length) - 1]!;
  }
}

/** The token counts a cost is computed from: a step's, or a run's sums of them. */
type Tokens = Pick<
  StepRecord,
  | 'input_tokens'
  | 'output_tokens'
  | 'cached_tokens'
  | 'cache_write_tokens'
  | 'cache_write_1h_tokens'
  | 'reasoning_tokens'
>;

/** `r`'s tokens at `price`, `cached` of the input read from a cache; every other part at its own rate. */
const tokensAt = (price: Price, r: Tokens, cached: number) =>
  callCost(price, r.input_tokens, r.output_tokens, cached, {
    cacheWrite: r.cache_write_tokens,
    cacheWrite1h: r.cache_write_1h_tokens,
    reasoning: r.reasoning_tokens,
  });

/**
 * A step's cost at `price`, cache reads billed where the step recorded them (prompt caching on): steps.csv's
 * re-priced cost. A long-context tier is chosen by the step's own prompt, as the provider bills a call.
 */
export const costAt = (price: Price, s: Tokens & { settings: Pick<StepRecord['settings'], 'prompt_cache'> }) =>
  tokensAt(price, s, s.settings.prompt_cache ? s.cached_tokens : 0);

/**
 * What a step's output beyond its max_output_tokens costs at `price`: the ledger's overrun (the call less the same
 * call cut at the limit) on the step's recorded tokens, cache reads billed as costAt bills them. 0 within the limit.
 */
export const overrunAt = (price: Price, s: StepRecord): number =>
  overrunCost(
    price,
    {
      prompt_tokens: s.input_tokens,
      completion_tokens: s.output_tokens,
      cached_tokens: s.settings.prompt_cache ? s.cached_tokens : 0,
      cache_write_tokens: s.cache_write_tokens ?? 0,
      cache_write_1h_tokens: s.cache_write_1h_tokens ?? 0,
      reasoning_tokens: s.reasoning_tokens ?? 0,
    },
    s.settings.max_output_tokens,
  );

/** Input tokens a cache could have read: never those the same call wrote to it. */
const readable = (r: Tokens, hit: number) => Math.min(r.input_tokens - (r.cache_write_tokens ?? 0), hit);

/**
 * Each run's steps re-priced at each of `prices`, without prompt caching and with it (as recorded where
 * the run cached, estimated where it did not), summed call by call: a long-context tier is a call's, so a
 * re-priced run costs the sum of its re-priced steps. With `keepPrefixes` (a what-if) it keeps the sums
 * after every call: a derived run is a prefix of its recorded run.
 */
export class StepRepricer {
  private readonly prices: Price[];
  private readonly index: Map<string, number>;
  /** Per run: its calls so far and its running sums, `2 × prices` numbers a call (without and with caching) in one flat array; only the last call's unless prefixes are kept. */
  private readonly byRun = new Map<string, { calls: number; sums: number[] }>();

  constructor(
    prices: readonly Price[],
    private readonly keepPrefixes = false,
  ) {
    const byKey = new Map(prices.map((p) => [JSON.stringify(p), p]));
    this.prices = [...byKey.values()];
    this.index = new Map([...byKey.keys()].map((k, i) => [k, i]));
  }

  /** Adds a step (a run's steps in order); `hit`: the input tokens of it a cache would read (CachedTokensEstimator.add). */
  add(s: StepRecord, hit: number): void {
    let run = this.byRun.get(s.run_id);
    if (!run) this.byRun.set(s.run_id, (run = { calls: 0, sums: [] }));
    const cached = s.settings.prompt_cache ? s.cached_tokens : readable(s, hit);
    const width = 2 * this.prices.length;
    // Where the previous call's sums are (-1: none), and where this call's go: appended, or over them.
    const last = run.calls === 0 ? -1 : this.keepPrefixes ? (run.calls - 1) * width : 0;
    const at = this.keepPrefixes ? run.calls * width : 0;
    for (let i = 0; i < this.prices.length; i++) {
      const p = this.prices[i]!;
      run.sums[at + 2 * i] = (last < 0 ? 0 : run.sums[last + 2 * i]!) + tokensAt(p, s, 0);
      run.sums[at + 2 * i + 1] = (last < 0 ? 0 : run.sums[last + 2 * i + 1]!) + tokensAt(p, s, cached);
    }
    run.calls++;
  }

  /**
   * The cost at `price` of run `runId`'s first `calls` calls, with or without caching; undefined when
   * `price` is not one it re-prices or those steps are not all in steps.jsonl.
   */
  cost(runId: string, calls: number, price: Price, cache: boolean): number | undefined {
    const i = this.slot(price);
    if (i === undefined) return undefined;
    if (calls <= 0) return 0;
    const run = this.byRun.get(runId);
    if (!run || run.calls < calls || (!this.keepPrefixes && run.calls !== calls)) return undefined;
    return this.sumAt(run, calls, i, cache);
  }

  /** Where `price`'s sums are kept (for soFar), or undefined when it is not one of the prices it re-prices at. */
  slot(price: Price): number | undefined {
    return this.index.get(JSON.stringify(price));
  }

  /** The cost of run `runId`'s steps added so far at the price in `slot`, with or without caching: steps.csv's re-priced cum_cost_usd. */
  soFar(runId: string, slot: number, cache: boolean): number {
    const run = this.byRun.get(runId);
    return run ? this.sumAt(run, run.calls, slot, cache) : 0;
  }

  private sumAt(run: { sums: number[] }, calls: number, slot: number, cache: boolean): number {
    const at = this.keepPrefixes ? (calls - 1) * 2 * this.prices.length : 0;
    return run.sums[at + 2 * slot + (cache ? 1 : 0)]!;
  }
}

/** A run's re-priced cost as the sum of its re-priced steps, with or without caching; undefined without its steps. */
export type StepCosts = (r: RunFacts, price: Price, cache: boolean) => number | undefined;

/**
 * A run's summed tokens at `price`'s base rates: for a run whose steps are not all recorded. A long-context
 * tier is chosen per call, by that call's prompt, which a run's totals do not tell.
 */
const totalsAt = (price: Price, r: RunFacts, cached: number) => {
  const { long_context: _tiers, ...base } = price;
  return tokensAt(base, r, cached);
};

export interface RepricedConfig {
  config_id: string;
  scenario: string;
  price_model: string;
  prompt_cache: boolean;
  /** True when the cached tokens are estimated rather than recorded. */
  cache_estimated: boolean;
  cost_usd_mean: number;
  cost_usd_total: number;
  /** Against the cost as recorded. */
  ratio_to_recorded: number;
}

export function repriceRuns(
  runs: readonly RunFacts[],
  prices: readonly Price[],
  cachedFor: (r: RunFacts) => number,
  stepCosts?: StepCosts,
): RepricedConfig[] {
  const byConfig = groupBy(runs, (r) => r.config_id);
  const out: RepricedConfig[] = [];
  for (const [config_id, group] of byConfig) {
    const recorded = group.reduce((s, r) => s + r.cost_usd, 0);
    for (const price of prices) {
      for (const cache of [false, true]) {
        const total = group.reduce(
          (s, r) => s + (stepCosts?.(r, price, cache) ?? totalsAt(price, r, cache ? readable(r, cachedFor(r)) : 0)),
          0,
        );
        out.push({
          config_id,
          scenario: group[0]!.scenario,
          price_model: price.model,
          prompt_cache: cache,
          cache_estimated: cache && group.some((r) => !r.settings.prompt_cache),
          cost_usd_mean: total / group.length,
          cost_usd_total: total,
          ratio_to_recorded: recorded > 0 ? total / recorded : NaN,
        });
      }
    }
  }
  return out;
}

/**
 * The runs as if billed at `price`: every cost the reports show comes from these. Cached tokens are
 * billed at the cached rate only where the run recorded them (prompt caching on), as the provider would.
 * A run costs the sum of its steps at `price` (each call at its tier) where `stepCosts` has them all.
 * The brakes fired at the recorded prices: a budget stop stays where it was.
 */
export function repriceAll<R extends RunFacts>(runs: readonly R[], price: Price, stepCosts?: StepCosts): R[] {
  const settings = new Map<RunFacts['settings'], RunFacts['settings']>();
  return runs.map((r) => {
    let s = settings.get(r.settings);
    if (!s) {
      const { role_prices: _rolePrices, ...rest } = r.settings;
      settings.set(r.settings, (s = { ...rest, price }));
    }
    const cache = Boolean(r.settings.prompt_cache);
    return {
      ...r,
      settings: s,
      cost_usd: stepCosts?.(r, price, cache) ?? totalsAt(price, r, cache ? r.cached_tokens : 0),
    };
  });
}
