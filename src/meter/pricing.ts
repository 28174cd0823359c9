// The pricing table is data, validated at load; errors name the file and field. Two formats: ours
// (data/pricing.yaml: USD per 1M tokens under `models:`) and LiteLLM's
// model_prices_and_context_window.json (USD per token, one entry per model), so `--pricing` takes
// the file users already keep up to date.
import { z } from 'zod';
import type { LongContextRates, Price, Rates } from '../contracts/settings.ts';
import { loadYamlFile, zodConfigError } from '../scenario/yaml-file.ts';
import { UsageError } from '../contracts/errors.ts';
import { readInputFile } from '../contracts/input-file.ts';
import { dataPath } from '../contracts/paths.ts';

const rate = z.number().nonnegative();

/** The rates of one tier; a long-context tier's absent rates are the model's own. */
const TierPrice = z
  .object({
    /** Every token of a call whose prompt exceeds this many tokens is billed at the tier's rates. */
    above_tokens: z.number().int().positive(),
    input: rate,
    cached_input: rate.optional(),
    cache_write: rate.optional(),
    cache_write_1h: rate.optional(),
    output: rate.optional(),
    reasoning: rate.optional(),
  })
  .strict();

const ModelPrice = z
  .object({
    input: rate,
    cached_input: rate.optional(),
    /** Input written to a prompt cache (Anthropic: 1.25× input for the 5-minute cache). */
    cache_write: rate.optional(),
    /** Input written to the 1-hour cache (Anthropic: 2× input); absent: the cache-write rate. */
    cache_write_1h: rate.optional(),
    output: rate,
    /** Reasoning tokens, when a provider bills them apart from other output. */
    reasoning: rate.optional(),
    context_window: z.number().int().positive().optional(),
    /** The most output tokens one answer may have (the model's limit): a gateway budget's worst case for a call that sets none. */
    max_output_tokens: z.number().int().positive().optional(),
    /** Long-context tiers (Anthropic and Gemini above 200k prompt tokens, OpenAI above 272k). */
    long_context: z.array(TierPrice).optional(),
  })
  .strict();

const PricingFile = z.object({ models: z.record(z.string().min(1), ModelPrice) }).strict();

export type PricingTable = z.infer<typeof PricingFile>;

/**
 * One entry of LiteLLM's table: the fields read here are checked, the many others (provider, mode,
 * feature flags) are left alone. Entries without both token prices (image, audio, embedding-only
 * models, the `sample_spec` template) price no chat call and are skipped.
 */
const LiteLLMEntry = z.looseObject({
  input_cost_per_token: rate.optional(),
  output_cost_per_token: rate.optional(),
  cache_read_input_token_cost: rate.nullable().optional(),
  cache_creation_input_token_cost: rate.nullable().optional(),
  output_cost_per_reasoning_token: rate.nullable().optional(),
  cache_creation_input_token_cost_above_1hr: rate.nullable().optional(),
  max_input_tokens: z.number().int().positive().nullable().optional(),
  max_output_tokens: z.number().int().positive().nullable().optional(),
});
/** LiteLLM's long-context fields: `<rate>_above_<N>[k]_tokens` (service-tier variants end otherwise and are left alone). */
const TIER_KEY =
  /^(input_cost_per_token|output_cost_per_token|cache_read_input_token_cost|cache_creation_input_token_cost|cache_creation_input_token_cost_above_1hr|output_cost_per_reasoning_token)_above_(\d+)(k?)_tokens$/;
const TIER_FIELD = {
  input_cost_per_token: 'input',
  output_cost_per_token: 'output',
  cache_read_input_token_cost: 'cached_input',
  cache_creation_input_token_cost: 'cache_write',
  cache_creation_input_token_cost_above_1hr: 'cache_write_1h',
  output_cost_per_reasoning_token: 'reasoning',
} as const;
const LiteLLMFile = z.record(z.string().min(1), z.unknown());

export const DEFAULT_PRICING_FILE = dataPath('pricing.yaml');
/** The seed's pricing: simulated runs are billed as gpt-4o-mini unless told otherwise. */
export const DEFAULT_PRICED_MODEL = 'gpt-4o-mini';

const perMillion = (usdPerToken: number) => Math.round(usdPerToken * 1e6 * 1e9) / 1e9;

/** LiteLLM's per-token prices as our per-1M table. */
export function fromLiteLLM(file: string, value: unknown): PricingTable {
  const top = LiteLLMFile.safeParse(value);
  if (!top.success) throw zodConfigError(file, top.error);
  const models: PricingTable['models'] = {};
  for (const [name, raw] of Object.entries(top.data)) {
    if (name === 'sample_spec' || !raw || typeof raw !== 'object') continue;
    const e = LiteLLMEntry.safeParse(raw);
    if (!e.success)
      throw zodConfigError(file, new z.ZodError(e.error.issues.map((i) => ({ ...i, path: [name, ...i.path] }))));
    const m = e.data;
    if (m.input_cost_per_token === undefined || m.output_cost_per_token === undefined) continue;
    models[name] = {
      input: perMillion(m.input_cost_per_token),
      output: perMillion(m.output_cost_per_token),
      ...(m.cache_read_input_token_cost != null ? { cached_input: perMillion(m.cache_read_input_token_cost) } : {}),
      ...(m.cache_creation_input_token_cost != null
        ? { cache_write: perMillion(m.cache_creation_input_token_cost) }
        : {}),
      ...(m.output_cost_per_reasoning_token != null
        ? { reasoning: perMillion(m.output_cost_per_reasoning_token) }
        : {}),
      ...(m.cache_creation_input_token_cost_above_1hr != null
        ? { cache_write_1h: perMillion(m.cache_creation_input_token_cost_above_1hr) }
        : {}),
      ...(m.max_input_tokens != null ? { context_window: m.max_input_tokens } : {}),
      ...(m.max_output_tokens != null ? { max_output_tokens: m.max_output_tokens } : {}),
    };
    const tiers = liteLLMTiers(file, name, raw as Record<string, unknown>);
    if (tiers.length) models[name].long_context = tiers;
  }
  if (Object.keys(models).length === 0)
    throw new UsageError(
      `${file}: no model with both input_cost_per_token and output_cost_per_token (is this LiteLLM's model_prices_and_context_window.json?)`,
    );
  return { models };
}

/**
 * A LiteLLM entry's long-context tiers, lowest threshold first. A threshold is set by its
 * `input_cost_per_token_above_…` field, as LiteLLM reads them; the tier's other fields are optional.
 */
function liteLLMTiers(file: string, model: string, entry: Record<string, unknown>): Array<z.infer<typeof TierPrice>> {
  const tiers = new Map<number, Record<string, number>>();
  for (const [key, value] of Object.entries(entry)) {
    const m = TIER_KEY.exec(key);
    if (!m || value === null) continue;
    if (typeof value !== 'number' || !(value >= 0))
      throw new UsageError(`${file}: ${model}.${key}: expected a non-negative number of USD per token`);
    const above = Number(m[2]) * (m[3] ? 1000 : 1);
    const tier = tiers.get(above) ?? {};
    tier[TIER_FIELD[m[1] as keyof typeof TIER_FIELD]] = perMillion(value);
    tiers.set(above, tier);
  }
  return [...tiers]
    .filter(([, t]) => t.input !== undefined)
    .sort(([a], [b]) => a - b)
    .map(([above_tokens, t]) => ({ above_tokens, ...t }) as z.infer<typeof TierPrice>);
}

/** A pricing file in either format: a `.json` file, or one without a `models:` mapping, is read as LiteLLM's. */
export function loadPricing(file = DEFAULT_PRICING_FILE): PricingTable {
  if (!file.endsWith('.json')) return loadYamlFile(file, PricingFile);
  const text = readInputFile(file);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${file}: invalid JSON (${(e as Error).message})`);
  }
  if (value && typeof value === 'object' && 'models' in value) {
    const ours = PricingFile.safeParse(value);
    if (!ours.success) throw zodConfigError(file, ours.error);
    return ours.data;
  }
  return fromLiteLLM(file, value);
}

const HOW_TO_PRICE =
  "--pricing FILE (a YAML table like data/pricing.yaml, or LiteLLM's model_prices_and_context_window.json), --price-model NAME (price it as a model of the table) or --price-in/--price-out";

/** A model the run would bill without a price: an error at start, never a silent $0 (or another model's price). */
export function noPriceError(model: string, file = DEFAULT_PRICING_FILE): UsageError {
  return new UsageError(`no price for model '${model}': add it to ${file}, or pass ${HOW_TO_PRICE}`);
}

export function priceFor(table: PricingTable, model: string, file = DEFAULT_PRICING_FILE): Price {
  const m = table.models[model];
  if (!m) {
    const known = Object.keys(table.models);
    const list = `${known.slice(0, 12).join(', ')}${known.length > 12 ? `, and ${known.length - 12} more` : ''}`;
    throw new UsageError(
      `${file}: no price for model '${model}' (known: ${list}); add it there, or pass ${HOW_TO_PRICE}`,
    );
  }
  const base: Rates = {
    input_per_1m: m.input,
    cached_input_per_1m: m.cached_input ?? m.input,
    output_per_1m: m.output,
    ...(m.cache_write !== undefined ? { cache_write_per_1m: m.cache_write } : {}),
    ...(m.cache_write_1h !== undefined ? { cache_write_1h_per_1m: m.cache_write_1h } : {}),
    ...(m.reasoning !== undefined ? { reasoning_per_1m: m.reasoning } : {}),
  };
  // A tier's absent rates are the model's own (as LiteLLM bills them); cached input without a rate of its own is input.
  const tiers = [...(m.long_context ?? [])]
    .sort((a, b) => a.above_tokens - b.above_tokens)
    .map((t): LongContextRates => ({
      above_tokens: t.above_tokens,
      input_per_1m: t.input,
      cached_input_per_1m: t.cached_input ?? m.cached_input ?? t.input,
      output_per_1m: t.output ?? m.output,
      ...((t.cache_write ?? m.cache_write) !== undefined ? { cache_write_per_1m: t.cache_write ?? m.cache_write } : {}),
      ...((t.cache_write_1h ?? m.cache_write_1h) !== undefined
        ? { cache_write_1h_per_1m: t.cache_write_1h ?? m.cache_write_1h }
        : {}),
      ...((t.reasoning ?? m.reasoning) !== undefined ? { reasoning_per_1m: t.reasoning ?? m.reasoning } : {}),
    }));
  return {
    model,
    ...base,
    ...(tiers.length ? { long_context: tiers } : {}),
    ...(m.max_output_tokens !== undefined ? { max_output_tokens: m.max_output_tokens } : {}),
  };
}

export function contextWindow(table: PricingTable, model: string): number | undefined {
  return table.models[model]?.context_window;
}

/** The parts of a call's tokens priced apart from plain input and output; each is a part of its total. */
export interface TokenDetail {
  /** Input tokens written to a prompt cache (within `input`). */
  cacheWrite?: number;
  /** Of those, the ones written to the 1-hour cache (within `cacheWrite`). */
  cacheWrite1h?: number;
  /** Output tokens spent on reasoning (within `output`). */
  reasoning?: number;
}

/**
 * The rates one call is billed at: a long-context tier applies to the whole call (input, cache reads and
 * writes, output) once its prompt — cache reads and writes included — exceeds the tier's threshold, as
 * Anthropic, Google and OpenAI bill it and LiteLLM computes it. A call's prompt, never a run's sum.
 */
export function ratesFor(price: Price, promptTokens: number): Rates {
  let rates: Rates = price;
  for (const tier of price.long_context ?? []) if (promptTokens > tier.above_tokens) rates = tier;
  return rates;
}

/**
 * USD for one call. `input` holds `cached` and `cacheWrite`, `output` holds `reasoning`: each part is
 * billed at its own rate (cache writes at the input rate and reasoning at the output rate when the
 * price has no rate of its own for them; 1-hour cache writes at the cache-write rate without one).
 */
export function callCost(
  price: Price,
  input: number,
  output: number,
  cached: number,
  detail: TokenDetail = {},
): number {
  const r = ratesFor(price, input);
  const write = detail.cacheWrite ?? 0;
  const write1h = detail.cacheWrite1h ?? 0;
  const reasoning = detail.reasoning ?? 0;
  const writeRate = r.cache_write_per_1m ?? r.input_per_1m;
  return (
    ((input - cached - write) * r.input_per_1m +
      cached * r.cached_input_per_1m +
      (write - write1h) * writeRate +
      // Only Anthropic bills a 1-hour cache: without a rate of its own, its published 2× input.
      write1h * (r.cache_write_1h_per_1m ?? 2 * r.input_per_1m) +
      (output - reasoning) * r.output_per_1m +
      reasoning * (r.reasoning_per_1m ?? r.output_per_1m)) /
    1e6
  );
}
