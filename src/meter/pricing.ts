// The pricing table is data, validated at load; errors name the file and field. Two formats: ours
// (data/pricing.yaml: USD per 1M tokens under `models:`) and LiteLLM's
// model_prices_and_context_window.json (USD per token, one entry per model), so `--pricing` takes
// the file users already keep up to date.
import { z } from 'zod';
import type { Price } from '../contracts/settings.ts';
import { loadYamlFile, zodConfigError } from '../scenario/yaml-file.ts';
import { UsageError } from '../contracts/errors.ts';
import { readInputFile } from '../contracts/input-file.ts';
import { dataPath } from '../contracts/paths.ts';

const rate = z.number().nonnegative();

const ModelPrice = z
  .object({
    input: rate,
    cached_input: rate.optional(),
    /** Input written to a prompt cache (Anthropic: 1.25× input for the 5-minute cache). */
    cache_write: rate.optional(),
    output: rate,
    /** Reasoning tokens, when a provider bills them apart from other output. */
    reasoning: rate.optional(),
    context_window: z.number().int().positive().optional(),
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
  max_input_tokens: z.number().int().positive().nullable().optional(),
});
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
    if (!e.success) throw zodConfigError(file, new z.ZodError(e.error.issues.map((i) => ({ ...i, path: [name, ...i.path] }))));
    const m = e.data;
    if (m.input_cost_per_token === undefined || m.output_cost_per_token === undefined) continue;
    models[name] = {
      input: perMillion(m.input_cost_per_token),
      output: perMillion(m.output_cost_per_token),
      ...(m.cache_read_input_token_cost != null ? { cached_input: perMillion(m.cache_read_input_token_cost) } : {}),
      ...(m.cache_creation_input_token_cost != null ? { cache_write: perMillion(m.cache_creation_input_token_cost) } : {}),
      ...(m.output_cost_per_reasoning_token != null ? { reasoning: perMillion(m.output_cost_per_reasoning_token) } : {}),
      ...(m.max_input_tokens != null ? { context_window: m.max_input_tokens } : {}),
    };
  }
  if (Object.keys(models).length === 0) throw new UsageError(`${file}: no model with both input_cost_per_token and output_cost_per_token (is this LiteLLM's model_prices_and_context_window.json?)`);
  return { models };
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

const HOW_TO_PRICE = "--pricing FILE (a YAML table like data/pricing.yaml, or LiteLLM's model_prices_and_context_window.json), --price-model NAME (price it as a model of the table) or --price-in/--price-out";

/** A model the run would bill without a price: an error at start, never a silent $0 (or another model's price). */
export function noPriceError(model: string, file = DEFAULT_PRICING_FILE): UsageError {
  return new UsageError(`no price for model '${model}': add it to ${file}, or pass ${HOW_TO_PRICE}`);
}

export function priceFor(table: PricingTable, model: string, file = DEFAULT_PRICING_FILE): Price {
  const m = table.models[model];
  if (!m) {
    const known = Object.keys(table.models);
    const list = `${known.slice(0, 12).join(', ')}${known.length > 12 ? `, and ${known.length - 12} more` : ''}`;
    throw new UsageError(`${file}: no price for model '${model}' (known: ${list}); add it there, or pass ${HOW_TO_PRICE}`);
  }
  return {
    model,
    input_per_1m: m.input,
    cached_input_per_1m: m.cached_input ?? m.input,
    output_per_1m: m.output,
    ...(m.cache_write !== undefined ? { cache_write_per_1m: m.cache_write } : {}),
    ...(m.reasoning !== undefined ? { reasoning_per_1m: m.reasoning } : {}),
  };
}

export function contextWindow(table: PricingTable, model: string): number | undefined {
  return table.models[model]?.context_window;
}

/** The parts of a call's tokens priced apart from plain input and output; each is a part of its total. */
export interface TokenDetail {
  /** Input tokens written to a prompt cache (within `input`). */
  cacheWrite?: number;
  /** Output tokens spent on reasoning (within `output`). */
  reasoning?: number;
}

/**
 * USD for one call. `input` holds `cached` and `cacheWrite`, `output` holds `reasoning`: each part is
 * billed at its own rate (cache writes at the input rate and reasoning at the output rate when the
 * price has no rate of its own for them).
 */
export function callCost(price: Price, input: number, output: number, cached: number, detail: TokenDetail = {}): number {
  const write = detail.cacheWrite ?? 0;
  const reasoning = detail.reasoning ?? 0;
  return (
    ((input - cached - write) * price.input_per_1m +
      cached * price.cached_input_per_1m +
      write * (price.cache_write_per_1m ?? price.input_per_1m) +
      (output - reasoning) * price.output_per_1m +
      reasoning * (price.reasoning_per_1m ?? price.output_per_1m)) /
    1e6
  );
}
