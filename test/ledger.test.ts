// The run ledger (meter/ledger.ts): a run record is the sum of its steps, as written and as read back,
// and re-pricing prices runs as it prices steps — cache writes and reasoning at their own rates.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayOptions } from '../src/cli/serve.ts';
import { RUN_HEADER } from '../src/gateway/gateway.ts';
import { startStandaloneGateway } from '../src/gateway/standalone.ts';
import { requirePrice } from '../src/meter/model-price.ts';
import { RunLedger, stepsDisagree, type RunEnd } from '../src/meter/ledger.ts';
import { SEED_LIMITS, type Settings } from '../src/contracts/settings.ts';
import { loadPricing } from '../src/meter/pricing.ts';
import { buildReports } from '../src/report/build.ts';
import { readCsv } from './helpers/csv.ts';
import { completionWith, postRaw, sendJson, stubUpstream, type StubUpstream } from './helpers/stub-upstream.ts';
import { SERVE_FLAGS } from './helpers/serve-flags.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-ledger-'));
let upstream: StubUpstream;
afterAll(async () => {
  await upstream?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Per call: prompt, cache reads, cache writes, output, reasoning — as a Claude Code run through a gateway bills them. */
const CALLS = [
  { prompt: 1200, cached: 0, write: 900, output: 80, reasoning: 50 },
  { prompt: 1500, cached: 900, write: 300, output: 60, reasoning: 20 },
  { prompt: 1800, cached: 1200, write: 250, output: 120, reasoning: 90 },
];

const sum = (rows: Array<Record<string, string>>, k: string) => rows.reduce((s, r) => s + Number(r[k]), 0);

let dir: string;
beforeAll(async () => {
  let n = 0;
  upstream = await stubUpstream((_req, res) => {
    const c = CALLS[n++ % CALLS.length]!;
    const usage = {
      prompt_tokens: c.prompt,
      completion_tokens: c.output,
      prompt_tokens_details: { cached_tokens: c.cached, cache_write_tokens: c.write },
      completion_tokens_details: { reasoning_tokens: c.reasoning },
    };
    sendJson(res, completionWith(usage));
  });
  dir = path.join(tmp, 'gateway');
  const flags = {
    ...SERVE_FLAGS,
    upstream: upstream.url,
    out: dir,
    // The stub model is in no pricing table: a provider's model must be priced.
    priceModel: 'gpt-4o-mini',
  };
  const gw = await startStandaloneGateway(gatewayOptions(flags, { OPENAI_API_KEY: 'sk-stub' })!);
  const body = JSON.stringify({
    model: 'claude-code-stub',
    max_tokens: 400,
    messages: [
      { role: 'system', content: 'You are a coding agent. '.repeat(150) },
      { role: 'user', content: 'Fix the failing test.' },
    ],
  });
  for (let i = 0; i < CALLS.length; i++)
    expect((await postRaw(gw.url, body, { [RUN_HEADER]: 'claude-code-1' })).status).toBe(200);
  await gw.close();
});

describe('a gateway run with cache writes and reasoning', () => {
  it('is recorded with its cache-write and reasoning totals, each the sum of its steps', () => {
    const [run] = fs
      .readFileSync(path.join(dir, 'runs.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const steps = fs
      .readFileSync(path.join(dir, 'steps.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(steps).toHaveLength(3);
    expect(run).toMatchObject({
      calls: 3,
      input_tokens: 4500,
      cached_tokens: 2100,
      cache_write_tokens: 1450,
      output_tokens: 260,
      reasoning_tokens: 160,
    });
    expect(run.cost_usd).toBeCloseTo(
      steps.reduce((s: number, x: { cost_usd: number }) => s + x.cost_usd, 0),
      15,
    );
  });

  it('re-priced as claude-sonnet-4-5, runs.csv equals the sum of steps.csv in every price field', async () => {
    // The dated snapshot name, as Claude Code sends it, through the one resolver.
    const sonnet = requirePrice(loadPricing(), 'claude-sonnet-4-5-20250929');
    await buildReports(dir, { price: sonnet });
    const runs = readCsv(path.join(dir, 'runs.csv'));
    const steps = readCsv(path.join(dir, 'steps.csv'));
    expect(runs).toHaveLength(1);
    expect(steps).toHaveLength(3);
    for (const k of ['input_tokens', 'output_tokens', 'cached_tokens', 'cache_write_tokens', 'reasoning_tokens'])
      expect(Number(runs[0]![k]), k).toBe(sum(steps, k));
    expect(Number(runs[0]!.cost_usd)).toBeCloseTo(sum(steps, 'cost_usd'), 15);
    // One running sum: the run's re-priced cost is its last step's re-priced cumulative cost, to the digit.
    expect(runs[0]!.cost_usd).toBe(steps.at(-1)!.cum_cost_usd);
    // Independently: recorded without prompt caching, so cache reads bill as input; writes at $3.75, the rest of the input at $3, output at $15 (reasoning too: no rate of its own).
    const expected = CALLS.reduce((s, c) => s + ((c.prompt - c.write) * 3 + c.write * 3.75 + c.output * 15) / 1e6, 0);
    expect(Number(runs[0]!.cost_usd)).toBeCloseTo(expected, 12);
  });

  it("re-priced at a long-context tier, each call is billed at its own prompt's tier and the run is the sum of them (runs.csv, repricing.csv)", async () => {
    const tiered = path.join(tmp, 'tiered');
    fs.cpSync(dir, tiered, { recursive: true });
    // Calls 2 and 3 (1,500 and 1,800 prompt tokens) are above 1,400; call 1 (1,200) is not, though the run's 4,500 are.
    const price = {
      ...requirePrice(loadPricing(), 'claude-sonnet-4-5'),
      long_context: [
        { above_tokens: 1400, input_per_1m: 6, cached_input_per_1m: 0.6, cache_write_per_1m: 7.5, output_per_1m: 22.5 },
      ],
    };
    await buildReports(tiered, { price, priceAs: [price] });
    const [c1, c2, c3] = CALLS;
    const expected =
      ((c1!.prompt - c1!.write) * 3 +
        c1!.write * 3.75 +
        c1!.output * 15 +
        [c2!, c3!].reduce((s, c) => s + (c.prompt - c.write) * 6 + c.write * 7.5 + c.output * 22.5, 0)) /
      1e6;
    const steps = readCsv(path.join(tiered, 'steps.csv'));
    expect(sum(steps, 'cost_usd')).toBeCloseTo(expected, 12);
    expect(Number(readCsv(path.join(tiered, 'runs.csv'))[0]!.cost_usd)).toBeCloseTo(expected, 12);
    const off = readCsv(path.join(tiered, 'repricing.csv')).find((r) => r.prompt_cache === 'off')!;
    expect(Number(off.cost_usd_total)).toBeCloseTo(expected, 12);
  });

  it('an older record without the two totals takes them from its steps, and is re-priced the same', async () => {
    const older = path.join(tmp, 'older');
    fs.cpSync(dir, older, { recursive: true });
    const file = path.join(older, 'runs.jsonl');
    const { cache_write_tokens: _w, reasoning_tokens: _r, ...record } = JSON.parse(fs.readFileSync(file, 'utf8'));
    fs.writeFileSync(file, `${JSON.stringify(record)}\n`);
    await buildReports(older, { price: requirePrice(loadPricing(), 'claude-sonnet-4-5') });
    const [run] = readCsv(path.join(older, 'runs.csv'));
    expect(run).toMatchObject({ cache_write_tokens: '1450', reasoning_tokens: '160' });
    expect(Number(run!.cost_usd)).toBeCloseTo(sum(readCsv(path.join(older, 'steps.csv')), 'cost_usd'), 15);
  });

  it('a run record that is not the sum of its steps is refused, naming the file, line and field', async () => {
    const edited = path.join(tmp, 'edited');
    fs.cpSync(dir, edited, { recursive: true });
    const file = path.join(edited, 'runs.jsonl');
    const record = JSON.parse(fs.readFileSync(file, 'utf8'));
    fs.writeFileSync(
      file,
      `${JSON.stringify({ ...record, run_id: 'other' })}\n${JSON.stringify({ ...record, cache_write_tokens: 1000 })}\n`,
    );
    await expect(buildReports(edited)).rejects.toThrow(
      /^runs\.jsonl line 2: cache_write_tokens is 1000, but the run's 3 step record\(s\) in steps\.jsonl add up to 1450/,
    );
  });
});

describe('one sum of a run: calls metered now and steps read back', () => {
  const settings: Settings = {
    scenario: 'external',
    model: 'sim',
    limits: { ...SEED_LIMITS },
    reflection: 'off',
    max_reflections: 2,
    context: 'full',
    price: requirePrice(loadPricing(), 'claude-sonnet-4-5'),
    prompt_cache: true,
    max_output_tokens: 1024,
    seed: 0,
    repeat: 0,
    agent: {},
  };

  it('adds up to the same totals both ways; a call metered now keeps its clock unrounded for the timeout brake', () => {
    const live = new RunLedger('r', 'c', settings);
    const steps = CALLS.map((c, i) =>
      live.record({
        step: i + 1,
        role: 'act',
        usage: {
          prompt_tokens: c.prompt,
          completion_tokens: c.output,
          cached_tokens: c.cached,
          cache_write_tokens: c.write,
          ...(i === 1 ? { cache_write_1h_tokens: 100 } : {}),
          reasoning_tokens: c.reasoning,
        },
        latencyMs: 10.4,
        elapsedMs: 1000.6 * (i + 1),
      }),
    );
    expect(live.totals.elapsedMs).toBe(3001.8);
    expect(steps.map((s) => [s.call, s.cum_input_tokens, s.cum_cost_usd])).toEqual(
      steps.map((s, i) => [i + 1, CALLS.slice(0, i + 1).reduce((n, c) => n + c.prompt, 0), expect.any(Number)]),
    );
    expect(steps[2]!.cum_cost_usd).toBe(steps[0]!.cost_usd + steps[1]!.cost_usd + steps[2]!.cost_usd);
    const readBack = new RunLedger('r', 'c', settings);
    for (const s of steps) readBack.add(s);
    expect(readBack.totals).toEqual({ ...live.totals, elapsedMs: 3002 });
    expect(readBack.totals).toMatchObject({
      calls: 3,
      cacheWriteTokens: 1450,
      cacheWrite1hTokens: 100,
      reasoningTokens: 160,
    });
    expect(stepsDisagree(live.runRecord(END), readBack.totals)).toBeNull();
  });
});

const END: RunEnd = {
  agent: 'external',
  stop: { reason: 'done', detail: '', step: 3 },
  elapsedMs: 3001.8,
  answer: null,
  success: null,
  started_at: '',
  finished_at: '',
};
