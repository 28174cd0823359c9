// Which token counts are estimates. loopbench counts tokens with o200k_base (OpenAI's gpt-4o, gpt-4.1,
// gpt-5 and o-series tokenizer); a simulated model's usage is that count whatever model the run is priced
// as, so for a model with another tokenizer (Anthropic's is not public, Gemini's and Llama's differ) the
// counts are o200k_base estimates of what that model would bill.
import type { Settings } from '../contracts/settings.ts';

export const O200K_ESTIMATE = 'o200k_base';

/** Models billed by o200k_base tokens: loopbench's count is theirs. */
const O200K_MODELS = /^(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|o1|o3|o4)/;

/** A price not named for a model (`--price-in`, an import's unknown price) says nothing about a tokenizer. */
const UNNAMED = new Set(['custom', 'unknown']);

const simulated = (model: string) => model === 'sim' || model.startsWith('sim:');

/** True when a call of a run with this model spec, priced as `pricedAs`, is counted by o200k_base standing in for another tokenizer. */
export function tokensEstimated(model: string, pricedAs: string): boolean {
  return simulated(model) && !UNNAMED.has(pricedAs) && !O200K_MODELS.test(pricedAs);
}

/** The models a run is priced as whose token counts are o200k_base estimates (its price and its roles' prices). */
export function estimatedModels(settings: Pick<Settings, 'model' | 'price' | 'role_prices'>): string[] {
  const priced = [settings.price, ...Object.values(settings.role_prices ?? {})].map((p) => p.model);
  return [...new Set(priced.filter((m) => tokensEstimated(settings.model, m)))];
}
