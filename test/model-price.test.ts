// One resolver from a model's name to its price (meter/model-price.ts), and every place that prices a
// model by name going through it: import, the standalone gateway, bench run's --model / --price-model,
// per-role models and --price-as.
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findPrice, pricedName, requirePrice } from '../src/meter/model-price.ts';
import { DEFAULT_PRICED_MODEL, loadPricing, type PricingTable } from '../src/meter/pricing.ts';
import { pricing } from '../src/cli/import.ts';
import { gatewayOptions } from '../src/cli/serve.ts';
import { resolvePrice } from '../src/runner/plan.ts';
import { modelPrices } from '../src/runner/taskqueue-plan.ts';
import { UsageError } from '../src/contracts/errors.ts';
import { SERVE_FLAGS } from './helpers/serve-flags.ts';

const table = loadPricing();

describe('the model-name resolver', () => {
  it.each([
    ['gpt-4o', 'gpt-4o'],
    ['openai:gpt-4o', 'gpt-4o'],
    ['openai/gpt-4o', 'gpt-4o'],
    ['openai:gpt-4o-2024-08-06', 'gpt-4o'],
    ['gpt-4o-2024-08-06', 'gpt-4o'],
    ['gpt-4o-mini-2024-07-18', 'gpt-4o-mini'],
    ['anthropic:claude-sonnet-4-5', 'claude-sonnet-4-5'],
    ['claude-sonnet-4-5-20250929', 'claude-sonnet-4-5'],
    ['anthropic/claude-sonnet-4-5-20250929', 'claude-sonnet-4-5'],
    ['anthropic:claude-haiku-4-5-20251001', 'claude-haiku-4-5'],
    ['claude-opus-4-1@20250805', 'claude-opus-4-1'],
    ['openrouter/openai/gpt-4.1-mini', 'gpt-4.1-mini'],
  ])('prices %s as %s', (spelled, name) => {
    expect(pricedName(table, spelled)).toBe(name);
    expect(findPrice(table, spelled)?.model).toBe(name);
  });

  it.each(['gemini-2.5-flash', 'openai:', 'gpt-4o-turbo', 'claude-sonnet', '', 'toString', '2024-08-06'])(
    'has no price for %j',
    (spelled) => {
      expect(pricedName(table, spelled)).toBeUndefined();
      expect(findPrice(table, spelled)).toBeUndefined();
    },
  );

  it("takes a snapshot's own entry over its model's, and says which model an unknown name is not", () => {
    const own: PricingTable = { models: { ...table.models, 'gpt-4o-2024-05-13': { input: 5, output: 15 } } };
    expect(findPrice(own, 'openai/gpt-4o-2024-05-13')).toMatchObject({ model: 'gpt-4o-2024-05-13', input_per_1m: 5 });
    expect(findPrice(own, 'gpt-4o-2024-08-06')).toMatchObject({ model: 'gpt-4o', input_per_1m: 2.5 });
    expect(requirePrice(table, 'anthropic:claude-sonnet-4-5-20250929').model).toBe('claude-sonnet-4-5');
    expect(() => requirePrice(table, 'gemini-2.5-flash')).toThrow(UsageError);
    expect(() => requirePrice(table, 'gemini-2.5-flash')).toThrow(/no price for model 'gemini-2\.5-flash'/);
  });
});

describe('every place that prices a model by its name', () => {
  it('import, the gateway, bench run and per-role models give one spelling one price', () => {
    const byImport = pricing({}) as (model: string) => ReturnType<typeof findPrice>;
    const flags = {
      ...SERVE_FLAGS,
      out: path.join(os.tmpdir(), 'never-written'),
    };
    const byGateway = gatewayOptions(flags, {})!.priceOf!;
    for (const [spelled, name] of [
      ['openai/gpt-4o', 'gpt-4o'],
      ['gpt-4o-2024-08-06', 'gpt-4o'],
      ['claude-sonnet-4-5-20250929', 'claude-sonnet-4-5'],
    ] as const) {
      expect(byImport(spelled)?.model).toBe(name);
      // The gateway priced `openai/gpt-4o` at the default price before: import and gateway read names alike now.
      expect(byGateway(spelled)).toMatchObject({ model: name });
    }
    expect(resolvePrice({}, ['openai:gpt-4o-2024-08-06'], table).model).toBe('gpt-4o');
    expect(resolvePrice({ priceModel: 'anthropic:claude-haiku-4-5' }, ['sim'], table).model).toBe('claude-haiku-4-5');
    expect(() => resolvePrice({}, ['openai:gpt-9-2031-01-01'], table)).toThrow(/no price for model 'gpt-9-2031-01-01'/);
    expect(modelPrices(['openai:gpt-4.1-mini-2025-04-14', 'sim'], table, 'data/pricing.yaml')).toEqual({
      'openai:gpt-4.1-mini-2025-04-14': findPrice(table, 'gpt-4.1-mini'),
    });
  });

  it('bench run and the gateway in front of a provider agree on which names have no price: a real model the table lacks, not a simulated profile', () => {
    const flags = { ...SERVE_FLAGS, out: path.join(os.tmpdir(), 'never-written'), upstream: 'http://127.0.0.1:9' };
    const byGateway = gatewayOptions(flags, { OPENAI_API_KEY: 'sk-test-0123456789' })!.priceOf!;
    expect(byGateway('gpt-9-2031-01-01')).toMatchObject({ unpriced: expect.stringMatching(/no price for model/) });
    expect(() => resolvePrice({}, ['openai:gpt-9-2031-01-01'], table)).toThrow(/no price for model/);
    // A profile's name (an openai: run against bench serve) is billed as the sim is: the default price.
    expect(byGateway('seed-calibrated')).toBeUndefined();
    expect(resolvePrice({}, ['openai:seed-calibrated'], table).model).toBe(DEFAULT_PRICED_MODEL);
  });
});
