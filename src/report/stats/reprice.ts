// Re-pricing without re-running: the recorded tokens under other models' rates, with and without
// prompt caching, so a review can ask "what would this loop cost on model X" for free.
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

  constructor(private readonly keepPrefixes = false) {}

  add(r: StepRecord): void {
    let hit = 0;
    if (r.settings.prompt_cache) hit = r.cached_tokens;
    else if (r.settings.context === 'full') {
      const key = `${r.run_id}\u0000${r.role}`;
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

/**
 * A run's summed tokens priced at `price`'s base rates. A long-context tier is chosen per call, by that
 * call's prompt, which a run's totals do not tell: a total above the threshold is not a long call.
 */
const atBaseRates = ({ long_context: _tiers, ...base }: Price): Price => base;

export function repriceRuns(runs: readonly RunFacts[], prices: readonly Price[], cachedFor: (r: RunFacts) => number): RepricedConfig[] {
  const byConfig = groupBy(runs, (r) => r.config_id);
  const out: RepricedConfig[] = [];
  for (const [config_id, group] of byConfig) {
    const recorded = group.reduce((s, r) => s + r.cost_usd, 0);
    for (const price of prices) {
      for (const cache of [false, true]) {
        const total = group.reduce((s, r) => s + callCost(atBaseRates(price), r.input_tokens, r.output_tokens, cache ? Math.min(r.input_tokens, cachedFor(r)) : 0), 0);
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
 * The brakes fired at the recorded prices: a budget stop stays where it was.
 */
export function repriceAll<R extends RunFacts>(runs: readonly R[], price: Price): R[] {
  const settings = new Map<RunFacts['settings'], RunFacts['settings']>();
  return runs.map((r) => {
    let s = settings.get(r.settings);
    if (!s) {
      const { role_prices: _rolePrices, ...rest } = r.settings;
      settings.set(r.settings, (s = { ...rest, price }));
    }
    return { ...r, settings: s, cost_usd: callCost(atBaseRates(price), r.input_tokens, r.output_tokens, r.settings.prompt_cache ? r.cached_tokens : 0) };
  });
}

/** One step's cost at `price`, for steps.csv (cumulative cost summed per run by the caller). */
export const stepCostAt = (price: Price, s: StepRecord) =>
  callCost(price, s.input_tokens, s.output_tokens, s.settings.prompt_cache ? s.cached_tokens : 0, { cacheWrite: s.cache_write_tokens, cacheWrite1h: s.cache_write_1h_tokens, reasoning: s.reasoning_tokens });
