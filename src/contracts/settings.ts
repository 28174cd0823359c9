// Settings: everything a sweep varies for one run. Serialised whole into every record,
// so any row can be re-run alone (`bench --scenario X` with the same flags and seed).
import type { Role } from './chat.ts';
import type { LimitGrid, Limits } from './limits.ts';

export { SEED_LIMITS, type Limits } from './limits.ts';

/** USD per 1M tokens for each part of a call's usage. */
export interface Rates {
  input_per_1m: number;
  cached_input_per_1m: number;
  output_per_1m: number;
  /** Input tokens written to a prompt cache (Anthropic bills them above the input rate); absent: the input rate. */
  cache_write_per_1m?: number;
  /** Cache writes kept an hour (Anthropic's 1-hour TTL), a part of the cache writes; absent: the cache-write rate. */
  cache_write_1h_per_1m?: number;
  /** Reasoning tokens, a part of the output; absent: the output rate (as OpenAI bills them). */
  reasoning_per_1m?: number;
}

/** A long-context tier: a call whose prompt (cache reads and writes included) exceeds `above_tokens` is billed whole at these rates. */
export interface LongContextRates extends Rates {
  above_tokens: number;
}

export interface Price extends Rates {
  /** Pricing-table entry these rates came from, or `custom`. */
  model: string;
  /** Long-context tiers (LiteLLM's `*_above_200k_tokens`), lowest threshold first; absent: one rate at any prompt size. */
  long_context?: LongContextRates[];
  /** The model's most output tokens per answer, when the table says (a gateway budget's worst case for a call that sets no limit). */
  max_output_tokens?: number;
}

/** A price that says it is unknown (imported trajectories): their costs come from the trajectories alone. */
export const UNKNOWN_PRICE: Price = { model: 'unknown', input_per_1m: 0, cached_input_per_1m: 0, output_per_1m: 0 };

export const REFLECTIONS = ['off', 'final', 'every-step'] as const;
export type Reflection = (typeof REFLECTIONS)[number];

export interface Settings {
  scenario: string;
  /** `sim`, `sim:<profile>`, `openai:<model>`, `replay:<cassette>`. */
  model: string;
  limits: Limits;
  reflection: Reflection;
  max_reflections: number;
  /** `full`, `window:K` or `summarize:T`. */
  context: string;
  price: Price;
  prompt_cache: boolean;
  /** Sent as max_tokens; also what the budget brake projects for the next answer. */
  max_output_tokens: number;
  /** Per-run seed: depends on the sweep seed, the scenario and the repeat index only,
   *  so every configuration sees the same model behaviour (common random numbers). */
  seed: number;
  repeat: number;
  /** A model per role (task queue: execute, create, prioritize, summarize); absent roles use `model`. */
  role_models?: Partial<Record<Role, string>>;
  /** Prices for the roles that have their own model; absent roles are billed at `price`. */
  role_prices?: Partial<Record<Role, Price>>;
  /** Agent-specific knobs (task queue: queue_cap, dedup, ...), swept like the rest. */
  agent: Record<string, string | number | boolean | null>;
}

/** What the runs of one configuration share: their settings without the repeat-specific parts. */
export type ConfigSettings = Omit<Settings, 'seed' | 'repeat'>;

/** A configuration is the settings without the repeat-specific parts. */
export function configKey(s: ConfigSettings): string {
  // A run's settings carry seed and repeat; a configuration's shared object may still hold its first run's.
  const { seed: _seed, repeat: _repeat, ...rest } = s as Partial<Settings> & ConfigSettings;
  return JSON.stringify(rest);
}

/** Every dimension a sweep can vary; each holds the values to sweep. */
export type Grid = LimitGrid & {
  model: string[];
  reflection: Reflection[];
  context: string[];
  /** Agent-specific dimensions (task queue: queue_cap, dedup, ...). */
  agent: Record<string, Array<string | number | boolean | null>>;
};

/** Settings the sweep does not vary. */
export type Fixed = Pick<
  Settings,
  'price' | 'prompt_cache' | 'max_output_tokens' | 'max_reflections' | 'role_models'
> & {
  /** Prices of the per-role model specs that have their own entry in the pricing table. */
  model_prices?: Record<string, Price>;
};
