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
 */
export class CachedTokensEstimator {
  private readonly prevInput = new Map<string, number>();
  private readonly cached = new Map<string, number>();

  add(r: StepRecord): void {
    let hit = 0;
    if (r.settings.prompt_cache) hit = r.cached_tokens;
    else if (r.settings.context === 'full') {
      const key = `${r.run_id}\u0000${r.role}`;
      hit = Math.min(r.input_tokens, billableCachedTokens(this.prevInput.get(key) ?? 0));
      this.prevInput.set(key, r.input_tokens);
    }
    this.cached.set(r.run_id, (this.cached.get(r.run_id) ?? 0) + hit);
  }

  forRun(runId: string): number {
    return this.cached.get(runId) ?? 0;
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

export function repriceRuns(runs: readonly RunFacts[], prices: readonly Price[], cachedFor: (r: RunFacts) => number): RepricedConfig[] {
  const byConfig = groupBy(runs, (r) => r.config_id);
  const out: RepricedConfig[] = [];
  for (const [config_id, group] of byConfig) {
    const recorded = group.reduce((s, r) => s + r.cost_usd, 0);
    for (const price of prices) {
      for (const cache of [false, true]) {
        const total = group.reduce((s, r) => {
          const write = r.cache_write_tokens ?? 0;
          // Input written to the cache is not also read from it.
          const cached = cache ? Math.min(r.input_tokens - write, cachedFor(r)) : 0;
          return s + callCost(price, r.input_tokens, r.output_tokens, cached, { cacheWrite: write, reasoning: r.reasoning_tokens });
        }, 0);
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
    return { ...r, settings: s, cost_usd: costAt(price, r) };
  });
}

/**
 * A run's or a step's cost at `price`, from its tokens: runs and steps are priced by this one rule, so a
 * re-priced run costs the sum of its re-priced steps (cache writes and reasoning at their own rates).
 */
export const costAt = (price: Price, r: Pick<StepRecord, 'input_tokens' | 'output_tokens' | 'cached_tokens' | 'cache_write_tokens' | 'reasoning_tokens'> & { settings: Pick<StepRecord['settings'], 'prompt_cache'> }) =>
  callCost(price, r.input_tokens, r.output_tokens, r.settings.prompt_cache ? r.cached_tokens : 0, { cacheWrite: r.cache_write_tokens, reasoning: r.reasoning_tokens });
