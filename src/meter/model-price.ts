// One way from a model's name, as agents, SDKs, traces and flags spell it, to its entry in the pricing
// table: `gpt-4o`, `openai:gpt-4o` (a model spec), `openai/gpt-4o` (LiteLLM, OpenTelemetry, ATIF),
// `anthropic:claude-sonnet-4-5`, and dated snapshots (`gpt-4o-2024-08-06`, `claude-sonnet-4-5-20250929`)
// priced as their model when the table has no entry of their own. Pure: no I/O.
import type { Price } from '../contracts/settings.ts';
import { DEFAULT_PRICING_FILE, priceFor, type PricingTable } from './pricing.ts';

/** A snapshot's date at the end of its name: -2024-08-06 (OpenAI), -20250929 (Anthropic), @20250929 (Vertex). */
const SNAPSHOT = /(?:-\d{4}-\d{2}-\d{2}|[-@]\d{8})$/;

/** The spellings of `model` to look up, most specific first. */
function spellings(model: string): string[] {
  const names = [model];
  const spec = /^[a-z][\w-]*:(.+)$/i.exec(model);
  if (spec) names.push(spec[1]!);
  for (const n of [...names]) if (n.includes('/')) names.push(n.slice(n.lastIndexOf('/') + 1));
  // A name of its own (a dated entry, a provider-prefixed one) wins over its undated model.
  return [...names, ...names.map((n) => n.replace(SNAPSHOT, '')).filter((n, i) => n !== names[i])];
}

/** The pricing table's name for `model`, or undefined when the table prices none of its spellings. */
export function pricedName(table: PricingTable, model: string): string | undefined {
  return spellings(model).find((n) => n.length > 0 && Object.hasOwn(table.models, n));
}

/** The price of `model` under any of its spellings (named after the table's entry), or undefined. */
export function findPrice(table: PricingTable, model: string, file = DEFAULT_PRICING_FILE): Price | undefined {
  const name = pricedName(table, model);
  return name === undefined ? undefined : priceFor(table, name, file);
}

/** The price of `model` under any of its spellings; an unknown model is priceFor's error (naming the table's models). */
export function requirePrice(table: PricingTable, model: string, file = DEFAULT_PRICING_FILE): Price {
  return priceFor(table, pricedName(table, model) ?? model, file);
}
