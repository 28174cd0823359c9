// Prices users already have: LiteLLM's model_prices_and_context_window.json read by --pricing,
// cache-write and reasoning rates, and a real model with no price refused before anything runs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { callCost, loadPricing, priceFor } from '../src/meter/pricing.ts';
import { dataPath } from '../src/contracts/paths.ts';
import { RUN_DEFAULTS } from '../src/runner/run-defaults.ts';
import { buildSweepSpec } from '../src/runner/plan.ts';
import { transportFrom } from '../src/runner/transport.ts';
import { buildReports } from '../src/report/build.ts';
import { readCsv } from './helpers/csv.ts';
import { synthRun, writeResults } from './helpers/records.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-pricing-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const write = (name: string, value: unknown) => {
  const f = path.join(tmp, name);
  fs.writeFileSync(f, typeof value === 'string' ? value : JSON.stringify(value));
  return f;
};

describe("LiteLLM's pricing format", () => {
  it('reads per-token prices as per-1M rates, with cache reads, cache writes, reasoning, the context window and the max output', () => {
    const table = loadPricing(dataPath('litellm-prices.json'));
    expect(priceFor(table, 'claude-sonnet-4-5')).toEqual({
      model: 'claude-sonnet-4-5',
      input_per_1m: 3,
      cached_input_per_1m: 0.3,
      cache_write_per_1m: 3.75,
      cache_write_1h_per_1m: 6,
      output_per_1m: 15,
      long_context: [
        {
          above_tokens: 200_000,
          input_per_1m: 6,
          cached_input_per_1m: 0.6,
          cache_write_per_1m: 7.5,
          cache_write_1h_per_1m: 12,
          output_per_1m: 22.5,
        },
      ],
      max_output_tokens: 64000,
    });
    expect(priceFor(table, 'gpt-4o-mini')).toEqual({
      model: 'gpt-4o-mini',
      input_per_1m: 0.15,
      cached_input_per_1m: 0.075,
      output_per_1m: 0.6,
      max_output_tokens: 16384,
    });
    expect(table.models['gpt-4o']!.context_window).toBe(128000);
    // The template entry and an embedding model (no output price) price no chat call.
    expect(Object.keys(table.models)).not.toContain('sample_spec');
    expect(Object.keys(table.models)).not.toContain('text-embedding-3-small');
    const reasoning = loadPricing(
      write('r.json', {
        'o-x': { input_cost_per_token: 1e-6, output_cost_per_token: 4e-6, output_cost_per_reasoning_token: 8e-6 },
      }),
    );
    expect(priceFor(reasoning, 'o-x').reasoning_per_1m).toBe(8);
  });

  it("reads long-context tiers (`*_above_200k_tokens`, `*_above_272k_tokens`) as LiteLLM does: a tier's absent rates are the model's, service-tier variants are not tiers", () => {
    const t = loadPricing(
      write('tiers.json', {
        'gpt-x': {
          input_cost_per_token: 2.5e-6,
          output_cost_per_token: 1.5e-5,
          cache_read_input_token_cost: 2.5e-7,
          input_cost_per_token_above_272k_tokens: 5e-6,
          output_cost_per_token_above_272k_tokens: 2.25e-5,
          input_cost_per_token_above_272k_tokens_priority: 1e-5,
          input_cost_per_token_above_128k_tokens: 4e-6,
          cache_read_input_token_cost_above_128k_tokens: null,
        },
      }),
    );
    expect(priceFor(t, 'gpt-x').long_context).toEqual([
      { above_tokens: 128_000, input_per_1m: 4, cached_input_per_1m: 0.25, output_per_1m: 15 },
      { above_tokens: 272_000, input_per_1m: 5, cached_input_per_1m: 0.25, output_per_1m: 22.5 },
    ]);
    expect(() =>
      loadPricing(
        write('badtier.json', {
          m: { input_cost_per_token: 1e-6, output_cost_per_token: 1e-6, input_cost_per_token_above_200k_tokens: 'x' },
        }),
      ),
    ).toThrow(/badtier\.json: m\.input_cost_per_token_above_200k_tokens: expected a non-negative number/);
  });

  it('the shipped YAML table and the shipped LiteLLM table agree on every model both hold', () => {
    const yaml = loadPricing();
    const lite = loadPricing(dataPath('litellm-prices.json'));
    const both = Object.keys(lite.models).filter((m) => m in yaml.models);
    expect(both.length).toBeGreaterThanOrEqual(4);
    for (const m of both) expect(priceFor(lite, m)).toEqual(priceFor(yaml, m));
  });

  it('a bad field is an error naming the file, the model and the field', () => {
    const f = write('bad.json', { 'gpt-x': { input_cost_per_token: 'cheap', output_cost_per_token: 1e-6 } });
    expect(() => loadPricing(f)).toThrow(new RegExp(`${f}: gpt-x\\.input_cost_per_token: `));
    expect(() => loadPricing(write('none.json', { a: { mode: 'embedding' } }))).toThrow(
      /no model with both input_cost_per_token and output_cost_per_token/,
    );
    expect(() => loadPricing(write('broken.json', '{'))).toThrow(/invalid JSON/);
  });
});

describe('cost of a call with every part of its usage', () => {
  const price = priceFor(loadPricing(), 'claude-sonnet-4-5');
  it('bills cache reads, cache writes and plain input apart, and reasoning as output unless it has a rate', () => {
    // 1,000 input of which 600 cache reads and 100 cache writes; 500 output of which 200 reasoning.
    const usd = callCost(price, 1000, 500, 600, { cacheWrite: 100, reasoning: 200 });
    expect(usd).toBeCloseTo((300 * 3 + 600 * 0.3 + 100 * 3.75 + 500 * 15) / 1e6, 12);
    expect(
      callCost({ ...price, reasoning_per_1m: 30 }, 1000, 500, 600, { cacheWrite: 100, reasoning: 200 }),
    ).toBeCloseTo((300 * 3 + 600 * 0.3 + 100 * 3.75 + 300 * 15 + 200 * 30) / 1e6, 12);
    expect(callCost(priceFor(loadPricing(), 'gpt-4o-mini'), 1000, 500, 0, { cacheWrite: 100 })).toBeCloseTo(
      (1000 * 0.15 + 500 * 0.6) / 1e6,
      12,
    );
  });
});

describe('long-context tiers and 1-hour cache writes', () => {
  const sonnet = priceFor(loadPricing(dataPath('litellm-prices.json')), 'claude-sonnet-4-5');

  it('a 250k-token call is billed whole at the long-context rates; a 200k-token one at the base rates (the tier starts above the threshold)', () => {
    // 250,000 prompt tokens: 50,000 cache reads, 20,000 cache writes (5,000 of them for an hour); 2,000 output.
    const long = callCost(sonnet, 250_000, 2_000, 50_000, { cacheWrite: 20_000, cacheWrite1h: 5_000 });
    expect(long).toBeCloseTo((180_000 * 6 + 50_000 * 0.6 + 15_000 * 7.5 + 5_000 * 12 + 2_000 * 22.5) / 1e6, 12);
    expect(callCost(sonnet, 250_000, 2_000, 0)).toBeCloseTo((250_000 * 6 + 2_000 * 22.5) / 1e6, 12);
    expect(callCost(sonnet, 200_000, 2_000, 0)).toBeCloseTo((200_000 * 3 + 2_000 * 15) / 1e6, 12);
    // Cache reads and writes count toward the threshold: 150,000 plain input and 60,000 cache reads is a 210k prompt.
    expect(callCost(sonnet, 210_000, 0, 60_000)).toBeCloseTo((150_000 * 6 + 60_000 * 0.6) / 1e6, 12);
  });

  it("1-hour cache writes at their own rate, 5-minute ones at the cache-write rate; without a 1-hour rate, at 2× input (Anthropic's published rate)", () => {
    expect(callCost(sonnet, 10_000, 0, 0, { cacheWrite: 8_000, cacheWrite1h: 3_000 })).toBeCloseTo(
      (2_000 * 3 + 5_000 * 3.75 + 3_000 * 6) / 1e6,
      12,
    );
    const { cache_write_1h_per_1m: _oneHour, ...no1h } = sonnet;
    expect(callCost(no1h, 10_000, 0, 0, { cacheWrite: 8_000, cacheWrite1h: 3_000 })).toBeCloseTo(
      (2_000 * 3 + 5_000 * 3.75 + 3_000 * 6) / 1e6,
      12,
    );
  });

  it('our YAML table spells the same tiers (long_context) and 1-hour rate (cache_write_1h)', () => {
    expect(priceFor(loadPricing(), 'claude-sonnet-4-5')).toEqual(sonnet);
    const f = write(
      't.yaml',
      'models:\n  m:\n    input: 1\n    output: 2\n    long_context:\n      - above_tokens: 1000\n        input: 3\n',
    );
    expect(priceFor(loadPricing(f), 'm').long_context).toEqual([
      { above_tokens: 1000, input_per_1m: 3, cached_input_per_1m: 3, output_per_1m: 2 },
    ]);
    expect(callCost(priceFor(loadPricing(f), 'm'), 1001, 10, 0)).toBeCloseTo((1001 * 3 + 10 * 2) / 1e6, 12);
  });
});

describe('a real model without a price', () => {
  const plan = (flags: Record<string, string>) => {
    const opts = { ...RUN_DEFAULTS, ...flags };
    return buildSweepSpec(opts, transportFrom(opts, { OPENAI_API_KEY: 'sk-x', ANTHROPIC_API_KEY: 'sk-ant-x' }));
  };
  it("is refused at start with where to add it, never billed $0 or at another model's rates", () => {
    expect(() => plan({ model: 'openai:claude-9' })).toThrow(
      /no price for model 'claude-9': add it to .*data\/pricing\.yaml, or pass --pricing FILE .*LiteLLM.*--price-model NAME.*--price-in\/--price-out/,
    );
    expect(plan({ model: 'openai:claude-9', priceModel: 'claude-haiku-4-5' }).fixed.price.model).toBe(
      'claude-haiku-4-5',
    );
    expect(
      plan({ model: 'openai:claude-sonnet-4-5', pricing: dataPath('litellm-prices.json') }).fixed.price,
    ).toMatchObject({ model: 'claude-sonnet-4-5', cache_write_per_1m: 3.75 });
    // The coding agents' models under --agent-cmd: refused at start too, naming the remedy.
    for (const model of ['anthropic:claude-opus-4-8', 'openai:gpt-5.1-codex'])
      expect(() => plan({ model, agentCmd: "claude -p 'hi'" })).toThrow(
        /no price for model '(claude-opus-4-8|gpt-5\.1-codex)': .*--pricing FILE .*LiteLLM's model_prices_and_context_window\.json.*--price-model NAME/,
      );
    // A simulated profile's name (an openai: run against bench serve) is billed as the sim is.
    expect(plan({ model: 'openai:seed-calibrated' }).fixed.price.model).toBe('gpt-4o-mini');
  });
});

describe('reports keep the parts of a call apart', () => {
  it('runs.csv has the 1-hour cache writes next to the cache writes, from the record or, in an older one, its steps', async () => {
    const rec = synthRun({ scenario: 'cached', maxSteps: 4, repeat: 0, input: () => 2000, stepsToDone: 2 });
    Object.assign(rec.steps[0]!, { cache_write_tokens: 1500, cache_write_1h_tokens: 500 });
    Object.assign(rec.steps[1]!, { cache_write_tokens: 300, cache_write_1h_tokens: 100 });
    Object.assign(rec.run, { cache_write_tokens: 1800, cache_write_1h_tokens: 600 });
    const rowOf = async (name: string, run: object) => {
      const dir = path.join(tmp, name);
      writeResults(dir, [{ run: run as typeof rec.run, steps: rec.steps }]);
      await buildReports(dir);
      const steps = readCsv(path.join(dir, 'steps.csv'));
      expect(steps.map((x) => x.cache_write_1h_tokens)).toEqual(['500', '100']);
      return readCsv(path.join(dir, 'runs.csv'))[0]!;
    };
    const row = await rowOf('1h-writes', rec.run);
    expect(row).toMatchObject({ cache_write_tokens: '1800', cache_write_1h_tokens: '600' });
    expect(Object.keys(row).indexOf('cache_write_1h_tokens')).toBe(Object.keys(row).indexOf('cache_write_tokens') + 1);
    const { cache_write_1h_tokens: _1h, ...older } = rec.run;
    expect(await rowOf('1h-writes-older', older)).toMatchObject({ cache_write_1h_tokens: '600' });
  });

  it('steps.csv carries cache writes (1-hour ones too), reasoning tokens and the withheld mark; a re-priced step bills each part at its rate', async () => {
    const { stepRow } = await import('../src/report/render/csv.ts');
    const { costAt: stepCostAt } = await import('../src/report/stats/reprice.ts');
    const base = {
      run_id: 'r',
      config_id: 'c',
      scenario: 's',
      step: 1,
      round: 0,
      role: 'act' as const,
      call: 1,
      input_tokens: 1000,
      output_tokens: 500,
      cached_tokens: 600,
      cum_input_tokens: 1000,
      cum_output_tokens: 500,
      cost_usd: 0,
      cum_cost_usd: 0,
      latency_ms: 0,
      elapsed_ms: 0,
      retries: 0,
      action: null,
      fingerprint: null,
      error: null,
    };
    const settings = { prompt_cache: true } as never;
    const step = {
      ...base,
      cache_write_tokens: 100,
      cache_write_1h_tokens: 40,
      reasoning_tokens: 200,
      withheld: true as const,
      settings,
    };
    expect(stepRow(step)).toMatchObject({
      cached_tokens: 600,
      cache_write_tokens: 100,
      cache_write_1h_tokens: 40,
      reasoning_tokens: 200,
      withheld: 'yes',
    });
    // The 1-hour writes next to the cache writes they are a part of.
    const columns = Object.keys(stepRow(step));
    expect(columns.slice(columns.indexOf('cached_tokens'), columns.indexOf('reasoning_tokens') + 1)).toEqual([
      'cached_tokens',
      'cache_write_tokens',
      'cache_write_1h_tokens',
      'reasoning_tokens',
    ]);
    expect(stepRow({ ...base, settings })).toMatchObject({
      cache_write_tokens: 0,
      cache_write_1h_tokens: 0,
      reasoning_tokens: 0,
      withheld: '',
    });
    const price = { ...priceFor(loadPricing(), 'claude-sonnet-4-5'), reasoning_per_1m: 30 };
    // 60 writes at the 5-minute $3.75, 40 at the 1-hour $6.
    expect(stepCostAt(price, step)).toBeCloseTo(
      (300 * 3 + 600 * 0.3 + 60 * 3.75 + 40 * 6 + 300 * 15 + 200 * 30) / 1e6,
      12,
    );
  });
});
