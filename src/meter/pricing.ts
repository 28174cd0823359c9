// The pricing table is data (data/pricing.yaml), validated at load; errors name the file and field.
import { z } from 'zod';
import type { Price } from '../contracts/settings.ts';
import { loadYamlFile } from '../scenario/yaml-file.ts';
import { UsageError } from '../contracts/errors.ts';
import { dataPath } from '../contracts/paths.ts';

const ModelPrice = z
  .object({
    input: z.number().nonnegative(),
    cached_input: z.number().nonnegative().optional(),
    output: z.number().nonnegative(),
    context_window: z.number().int().positive().optional(),
  })
  .strict();

const PricingFile = z.object({ models: z.record(z.string().min(1), ModelPrice) }).strict();

export type PricingTable = z.infer<typeof PricingFile>;

export const DEFAULT_PRICING_FILE = dataPath('pricing.yaml');
/** The seed's pricing: simulated runs are billed as gpt-4o-mini unless told otherwise. */
export const DEFAULT_PRICED_MODEL = 'gpt-4o-mini';

export function loadPricing(file = DEFAULT_PRICING_FILE): PricingTable {
  return loadYamlFile(file, PricingFile);
}

export function priceFor(table: PricingTable, model: string, file = DEFAULT_PRICING_FILE): Price {
  const m = table.models[model];
  if (!m) {
    throw new UsageError(
      `${file}: no price for model '${model}' (known: ${Object.keys(table.models).join(', ')}); pass --price-in/--price-out or --pricing FILE`,
    );
  }
  return { model, input_per_1m: m.input, cached_input_per_1m: m.cached_input ?? m.input, output_per_1m: m.output };
}

export function contextWindow(table: PricingTable, model: string): number | undefined {
  return table.models[model]?.context_window;
}

export function callCost(price: Price, input: number, output: number, cached: number): number {
  return ((input - cached) * price.input_per_1m + cached * price.cached_input_per_1m + output * price.output_per_1m) / 1e6;
}
