// Promises pinned against expectations written independently of the code that keeps them: known
// data for the statistics, prices written out by hand, a property over every repeat's seed, a
// proxy-style key that no generic pattern would mask, and running sums checked call by call.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { StepRecord } from '../src/contracts/records.ts';
import { callCost } from '../src/meter/pricing.ts';
import { summarizeConfigs } from '../src/report/stats/aggregate.ts';
import { spread } from '../src/report/stats/descriptive.ts';
import { quantile } from '../src/stats/quantile.ts';
import { buildSweepSpec, type RunOptions, type StartOptions } from '../src/runner/plan.ts';
import { RUN_DEFAULTS } from '../src/runner/run-defaults.ts';
import { expandSweep } from '../src/runner/sweep.ts';
import { benchInProcess } from './helpers/cli.ts';
import { gridOf, runOnce, runPlans, specOf } from './helpers.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-pinned-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('percentiles on known data', () => {
  // 1..20: the 95th percentile by linear interpolation between closest ranks sits at rank
  // 0.95 × 19 = 18.05, i.e. 19 + 0.05 × (20 − 19) = 19.05; the 90th would be 18.1, the median 10.5.
  const oneToTwenty = Array.from({ length: 20 }, (_, i) => i + 1);

  it('p50 and p95 of 1..20 are 10.5 and 19.05, however the data is ordered', () => {
    const shuffled = [7, 20, 1, 13, 2, 19, 8, 14, 3, 18, 9, 15, 4, 17, 10, 16, 5, 12, 6, 11];
    expect(spread(shuffled)).toEqual({ mean: 10.5, p50: 10.5, p95: 19.05, max: 20 });
    expect(quantile(shuffled, 0.95)).toBeCloseTo(19.05, 10);
    expect(quantile(oneToTwenty, 0.5)).toBe(10.5);
  });

  it('a skewed list: p95 of nineteen 1s and one 100 is 1 + 0.05 × 99 = 5.95', () => {
    const xs = [...Array.from({ length: 19 }, () => 1), 100];
    expect(spread(xs).p95).toBeCloseTo(5.95, 10);
    expect(spread(xs).p50).toBe(1);
  });

  it('the summary of a configuration reports those percentiles for cost', async () => {
    const runs = oneToTwenty.map((c) => ({
      run_id: `r${c}`,
      config_id: 'c',
      scenario: 's',
      agent: 'react',
      settings: { limits: {} },
      stop_reason: 'done',
      stop_step: 1,
      steps: c,
      calls: c,
      rounds: 0,
      input_tokens: c,
      output_tokens: c,
      cached_tokens: 0,
      cost_usd: c / 1000,
      elapsed_ms: c,
      success: true,
    }));
    const [summary] = summarizeConfigs(runs as never);
    expect(summary!.steps).toMatchObject({ p50: 10.5, p95: 19.05, max: 20 });
    expect(summary!.cost_usd.p95).toBeCloseTo(0.01905, 12);
  });
});

describe('prices, written out by hand', () => {
  const price = { model: 'hand', input_per_1m: 0.15, cached_input_per_1m: 0.075, output_per_1m: 0.6 };

  it('output tokens at the output rate, cached input at the cached rate', () => {
    expect(callCost(price, 1_000_000, 0, 0)).toBeCloseTo(0.15, 12);
    expect(callCost(price, 0, 1_000_000, 0)).toBeCloseTo(0.6, 12);
    expect(callCost(price, 1_000_000, 1_000_000, 0)).toBeCloseTo(0.75, 12);
    // 2,000 in of which 1,024 cached, 300 out: 976 × 0.15 + 1,024 × 0.075 + 300 × 0.6 = 146.4 + 76.8 + 180 = 403.2 per 1M.
    expect(callCost(price, 2000, 300, 1024)).toBeCloseTo(0.0004032, 12);
  });

  it('every step of a run priced $1 in, $100 out per 1M costs in × 1 + out × 100 per 1M', async () => {
    const custom = { model: 'custom', input_per_1m: 1, cached_input_per_1m: 1, output_per_1m: 100 };
    const spec = specOf(['seed-calibrated'], gridOf({ max_steps: 4 }));
    spec.fixed.price = custom;
    const [r] = await runPlans(spec);
    expect(r!.record.settings.price).toEqual(custom);
    expect(r!.steps).toHaveLength(4);
    for (const s of r!.steps) {
      expect(s.output_tokens).toBeGreaterThan(0);
      expect(s.cost_usd).toBeCloseTo((s.input_tokens * 1 + s.output_tokens * 100) / 1_000_000, 12);
    }
  });
});

describe('running sums include the call they are written with', () => {
  it('step 1 counts itself; each cumulative count is the sum of the calls up to and including it', async () => {
    const r = await runOnce('seed-calibrated', { max_steps: 6 });
    let input = 0;
    let output = 0;
    let cost = 0;
    expect(r.steps[0]!.cum_input_tokens).toBe(r.steps[0]!.input_tokens);
    expect(r.steps[0]!.cum_input_tokens).toBeGreaterThan(0);
    for (const s of r.steps) {
      input += s.input_tokens;
      output += s.output_tokens;
      cost += s.cost_usd;
      expect([s.cum_input_tokens, s.cum_output_tokens]).toEqual([input, output]);
      expect(s.cum_cost_usd).toBeCloseTo(cost, 12);
    }
    expect(r.record.input_tokens).toBe(input);
  });
});

const OPTIONS = { ...RUN_DEFAULTS, transcripts: false } as unknown as RunOptions & StartOptions;

describe('every repeat gets its own seed', () => {
  it('property: n repeats → n distinct seeds, the same n in every configuration (common random numbers)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.integer({ min: 2, max: 40 }), (seed, repeat) => {
        const spec = buildSweepSpec({
          ...OPTIONS,
          scenario: 'seed-calibrated,tiny-agent-sum-of-squares',
          steps: '3,5',
          seed: String(seed),
          repeat: String(repeat),
        });
        const plans = expandSweep(spec);
        const byConfig = new Map<string, number[]>();
        for (const p of plans) byConfig.set(p.configId, [...(byConfig.get(p.configId) ?? []), p.settings.seed]);
        expect(byConfig.size).toBe(4);
        for (const seeds of byConfig.values()) expect(new Set(seeds).size).toBe(repeat);
        expect(byConfig.get('seed-calibrated steps=3')).toEqual(byConfig.get('seed-calibrated steps=5'));
      }),
      { numRuns: 60 },
    );
  });

  it('and the simulated runs differ by it', async () => {
    const ran = await runPlans(specOf(['seed-calibrated'], gridOf({ max_steps: 3 }), { repeat: 5 }));
    expect(new Set(ran.map((x) => x.record.settings.seed)).size).toBe(5);
    expect(new Set(ran.map((x) => x.record.output_tokens)).size).toBeGreaterThan(1);
  });
});

describe('the configured API key is masked even when nothing about it looks like a key', () => {
  // A proxy's key: no sk- prefix, no Bearer in the echo, so only the configured value can mask it.
  const KEY = 'corpgw.7Qm2Vx9Lp4Tz8Rk1';

  it('a provider error echoing the key reaches no record, transcript or output', async () => {
    const server = http.createServer((req, res) => {
      const sent = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: {
            message: `Incorrect API key provided: ${sent}.`,
            type: 'invalid_request_error',
            param: null,
            code: 'invalid_api_key',
          },
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const out = path.join(tmp, 'proxy-key');
    vi.stubEnv('OPENAI_API_KEY', KEY);
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      const r = await benchInProcess([
        '-m',
        'openai:gpt-4o-mini',
        '-s',
        'seed-calibrated',
        '--steps',
        '2',
        '-n',
        '1',
        '--max-retries',
        '0',
        '--base-url',
        url,
        '-q',
        '-o',
        out,
      ]);
      // The one run errored, so the sweep fails (exit 1) and says why on stderr — masked there too.
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain('Incorrect API key provided: ***');
      const runs = fs.readFileSync(path.join(out, 'runs.jsonl'), 'utf8');
      expect(runs).toContain('Incorrect API key provided: ***');
      for (const file of fs.readdirSync(out, { recursive: true, withFileTypes: true })) {
        if (file.isFile())
          expect(fs.readFileSync(path.join(file.parentPath, file.name), 'utf8'), file.name).not.toContain(KEY);
      }
      expect(r.stdout + r.stderr).not.toContain(KEY);
    } finally {
      vi.unstubAllEnvs();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
