import { describe, expect, it } from 'vitest';
import { summarizeConfigs } from '../src/report/stats/aggregate.ts';
import { StepIndexAccumulator } from '../src/report/stats/step-index.ts';
import { pointList, stepPoints } from './helpers/step-points.ts';
import { csvLine, stepIndexLine, stepIndexRow } from '../src/report/render/csv.ts';
import { wilson } from '../src/stats/binomial.ts';
import { findings } from '../src/report/findings/findings.ts';
import { ratioTable, stepLimitSavings } from '../src/report/stats/step-limits.ts';
import { QuadraticFitAccumulator } from '../src/report/stats/fit.ts';
import { times } from '../src/report/format/numbers.ts';
import { groupBy } from '../src/report/data/group.ts';
import { max } from '../src/report/stats/descriptive.ts';
import { CachedTokensEstimator, repriceRuns } from '../src/report/stats/reprice.ts';
import { parseVolumes, projectVolumes } from '../src/report/stats/volume.ts';
import { UsageError } from '../src/contracts/errors.ts';
import { REFUSED } from '../src/contracts/records.ts';
import { PRICE, sampleSweep, seedInput, synthRun } from './helpers/records.ts';

describe('quadratic fit', () => {
  it('recovers known a and b from exact points', () => {
    const acc = new QuadraticFitAccumulator();
    for (let n = 1; n <= 30; n++) acc.add('s', n, 120 * n + 45 * n * n);
    const [fit] = acc.fits();
    expect(fit!.a).toBeCloseTo(120, 6);
    expect(fit!.b).toBeCloseTo(45, 6);
    expect(fit!.r2).toBeCloseTo(1, 9);
  });

  it('recovers a and b from noisy synthetic records, and R² drops below 1', () => {
    const acc = new QuadraticFitAccumulator();
    // Deterministic noise, many runs per step: the least-squares estimate lands near the truth.
    let x = 7;
    const noise = () => ((x = (x * 48271) % 2147483647) / 2147483647 - 0.5) * 400;
    for (let run = 0; run < 50; run++) for (let n = 1; n <= 20; n++) acc.add('s', n, -100 * n + 300 * n * n + noise());
    const [fit] = acc.fits();
    expect(Math.abs(fit!.a - -100)).toBeLessThan(10);
    expect(Math.abs(fit!.b - 300)).toBeLessThan(0.5);
    expect(fit!.r2).toBeLessThan(1);
    expect(fit!.r2).toBeGreaterThan(0.99);
  });

  it('the seed assumption (200·N + 600·N(N−1)/2) is a = −100, b = 300 from step records', () => {
    const acc = new QuadraticFitAccumulator();
    for (const { steps } of [synthRun({ scenario: 'seed', maxSteps: 30, repeat: 0, input: seedInput })])
      for (const s of steps) acc.addStep(s);
    const [fit] = acc.fits();
    expect(fit!.a).toBeCloseTo(-100, 6);
    expect(fit!.b).toBeCloseTo(300, 6);
  });

  it("leaves out a request the gateway refused: it reached no model, so it is no point of a step's figures or the fit", () => {
    const { steps } = synthRun({ scenario: 'seed', maxSteps: 30, repeat: 0, input: seedInput });
    const last = steps.at(-1)!;
    const refused = {
      ...last,
      call: last.call + 1,
      input_tokens: 0,
      output_tokens: 0,
      cost_usd: 0,
      error: `${REFUSED} (HTTP 403 loopbench_max_steps): loopbench brake 'max_steps' stopped this run`,
    };
    const fit = new QuadraticFitAccumulator();
    const at = new StepIndexAccumulator();
    for (const s of [...steps, refused]) {
      fit.addStep(s);
      at.add(s);
    }
    expect(fit.fits()[0]).toMatchObject({ a: expect.closeTo(-100, 6), b: expect.closeTo(300, 6) });
    expect(pointList(at.points()).find((p) => p.step === last.step)).toMatchObject({
      calls: 1,
      input_tokens: last.input_tokens,
    });
  });

  it('refuses to fit a scenario with a single step index', () => {
    const acc = new QuadraticFitAccumulator();
    acc.add('one', 1, 200);
    acc.add('one', 1, 210);
    expect(acc.fits()).toEqual([]);
  });
});

describe('per step index', () => {
  it('equals the means over every step record held at once, config by config and step by step, a run counted once a cell', () => {
    const sweep = sampleSweep([10, 30], 3);
    const steps = sweep.flatMap((r) => r.steps);
    // A run whose steps come in two separated batches, as an interrupted and resumed run's can: counted once each time.
    const again = sweep[0]!.steps.slice(0, 2);
    const at = new StepIndexAccumulator();
    for (const s of [...steps, ...again]) at.add(s);
    const held = [...groupBy([...steps, ...again], (s) => `${s.config_id}\u0000${s.step}`).values()].map((g) => ({
      config_id: g[0]!.config_id,
      scenario: g[0]!.scenario,
      max_steps: g[0]!.settings.limits.max_steps,
      step: g[0]!.step,
      calls: g.length,
      runs: g.filter((s, i) => i === 0 || g[i - 1]!.run_id !== s.run_id).length,
      input_tokens: g.reduce((n, s) => n + s.input_tokens, 0) / g.length,
      cum_input_tokens: g.reduce((n, s) => n + s.cum_input_tokens, 0) / g.length,
      cum_cost_usd: g.reduce((n, s) => n + s.cum_cost_usd, 0) / g.length,
    }));
    held.sort((a, b) => a.config_id.localeCompare(b.config_id) || a.step - b.step);
    expect(pointList(at.points())).toEqual(held);
    expect(held.find((p) => p.config_id === sweep[0]!.run.config_id && p.step === 1)!.runs).toBe(
      sweep.filter((r) => r.run.config_id === sweep[0]!.run.config_id).length + 1,
    );
  });

  it('holds the points as columns: configurations in order, each one range of its steps, a row of steps_by_index.csv by index', () => {
    const b = synthRun({ scenario: 'b', maxSteps: 3, repeat: 0, input: (n) => 10 * n });
    const a0 = synthRun({ scenario: 'a', maxSteps: 4, repeat: 0, input: (n) => 100 * n });
    const a1 = synthRun({ scenario: 'a', maxSteps: 4, repeat: 1, input: (n) => 300 * n, stepsToDone: 2 });
    // A second call at a step (a retried one) is a call more there, not a run more.
    const again = { ...a0.steps[0]!, call: 99, input_tokens: 700 };
    const at = new StepIndexAccumulator();
    for (const s of [...b.steps, a0.steps[0]!, again, ...a0.steps.slice(1), ...a1.steps]) at.add(s);
    const points = at.points();
    expect(points.configs.map((c) => [c.config_id, c.start, c.end])).toEqual([
      ['a steps=4', 0, 4],
      ['b steps=3', 4, 7],
    ]);
    expect(points.length).toBe(7);
    expect(Array.from({ length: points.length }, (_, i) => points.configIndexOf(i))).toEqual([0, 0, 0, 0, 1, 1, 1]);
    expect([...points.step]).toEqual([1, 2, 3, 4, 1, 2, 3]);
    expect([...points.calls]).toEqual([3, 2, 1, 1, 1, 1, 1]);
    expect([...points.runs]).toEqual([2, 2, 1, 1, 1, 1, 1]);
    expect(points.inputTokens[0]).toBe((100 + 700 + 300) / 3);
    expect(stepIndexRow(points, 1)).toEqual({
      config_id: 'a steps=4',
      scenario: 'a',
      max_steps: 4,
      step: 2,
      calls: 2,
      input_tokens_mean: (200 + 600) / 2,
      cum_input_tokens_mean: (100 + 200 + 300 + 600) / 2,
    });
    expect(points.point(4)).toMatchObject({ config_id: 'b steps=3', step: 1, calls: 1, runs: 1, input_tokens: 10 });
  });

  it('counts each run once a step past the columns it started with (the run a step last counted starts as none)', () => {
    const runs = [0, 1].map((repeat) =>
      synthRun({ scenario: 'a', maxSteps: 200, repeat, stepsToDone: 150, input: (n) => 10 * n }),
    );
    const at = new StepIndexAccumulator();
    for (const r of runs) for (const s of r.steps) at.add(s);
    const points = at.points();
    expect(points.length).toBe(150);
    expect([...points.runs].every((n) => n === 2)).toBe(true);
    expect([...points.calls].every((n) => n === 2)).toBe(true);
  });

  it('writes each steps_by_index.csv line as csvLine writes its row: fields that need quotes, no step limit, long means', () => {
    const points = stepPoints([
      {
        config_id: 'x, "quoted"',
        scenario: 'a\nb',
        max_steps: 12,
        step: 1,
        cum_input_tokens: 1 / 3,
        input_tokens: 2e21,
      },
      { config_id: 'x, "quoted"', scenario: 'a\nb', max_steps: 12, step: 7, cum_input_tokens: 0.1 + 0.2 },
      { config_id: 'plain', max_steps: null, step: 2, cum_input_tokens: 1e-7, input_tokens: -0 },
    ]);
    const line = stepIndexLine(points);
    const lines = Array.from({ length: points.length }, (_, i) => line(i));
    expect(lines).toEqual(Array.from({ length: points.length }, (_, i) => csvLine(stepIndexRow(points, i))));
    expect(lines).toEqual([
      'plain,s,off,2,1,0,1e-7\n',
      '"x, ""quoted""","a\nb",12,1,1,2e+21,0.3333333333333333\n',
      '"x, ""quoted""","a\nb",12,7,1,0,0.30000000000000004\n',
    ]);
  });
});

describe('ratio table and savings', () => {
  const sweep = sampleSweep([10, 30], 4);
  const summary = summarizeConfigs(sweep.map((r) => r.run));
  const acc = new QuadraticFitAccumulator();
  for (const r of sweep) for (const s of r.steps) acc.addStep(s);
  const fits = acc.fits();

  it('reads steps ×3 → tokens ×9.2 for the seed-shaped scenario (29,000 → 267,000 input tokens)', () => {
    const seed = summary.filter((c) => c.scenario === 'seed-shaped');
    expect(seed.map((c) => c.input_tokens.mean)).toEqual([29_000, 267_000]);
    const row = ratioTable(summary, fits).find((r) => r.scenario === 'seed-shaped')!;
    expect(times(row.steps_ratio)).toBe('×3');
    expect(row.tokens_ratio.toFixed(1)).toBe('9.2');
    expect(row.fit_tokens_ratio!.toFixed(1)).toBe('9.2');
  });

  it('reads steps taken, not the limits, and does not extrapolate the fit beyond the steps it saw', () => {
    // At MAX_STEPS 30 the runs take 20 and 4 steps (12 on average), at 3 they are all cut off at 3.
    const checked = sampleSweep([3, 30], 2).filter((r) => r.run.scenario === 'checked');
    const s = summarizeConfigs(checked.map((r) => r.run));
    const row = (fitUpTo: number) => {
      const a = new QuadraticFitAccumulator();
      for (const r of checked) for (const st of r.steps) if (st.step <= fitUpTo) a.addStep(st);
      return ratioTable(s, a.fits())[0]!;
    };
    expect(row(30)).toMatchObject({
      from_max_steps: 3,
      to_max_steps: 30,
      from_steps_mean: 3,
      to_steps_mean: 12,
      steps_ratio: 4,
    });
    expect(row(30).fit_tokens_ratio).not.toBeNull();
    // A fit of the first 5 steps says nothing about a run's 12th.
    expect(row(5).fit_tokens_ratio).toBeNull();
  });

  it('puts cost saved next to successes lost, and says it in a sentence', () => {
    const savings = stepLimitSavings(summary);
    const checked = savings.find((s) => s.scenario === 'checked')!;
    // repeat 0 needs 20 steps: it succeeds at 30 and is cut off at 10.
    expect(checked).toMatchObject({ max_steps: 10, highest_steps: 30, successes_lost: 1, highest_successes: 4 });
    expect(checked.cost_saved).toBeGreaterThan(0);
    const text = findings({
      summary,
      fits,
      ratios: ratioTable(summary, fits),
      savings,
      volumes: projectVolumes(summary, parseVolumes('10000/day')),
    });
    expect(text).toContain(
      `checked: lowering MAX_STEPS from 30 to 10 cuts mean cost by ${Math.round(checked.cost_saved * 100)}% ($0.0035 → $0.0016 per run; steps taken 8.8 → 6.3); it loses 1 of 4 successes (3/4 against 4/4); 1 of 4 runs at 10 were cut off by the step limit.`,
    );
    expect(
      text.some((t) =>
        t.startsWith('seed-shaped: cumulative input tokens after N steps fit 300·N² − 100·N (R² = 1.0000)'),
      ),
    ).toBe(true);
    expect(text.some((t) => t.includes('MAX_STEPS 10 → 30: steps taken ×3 (10.0 → 30.0) → input tokens ×9.21'))).toBe(
      true,
    );
  });
});

describe('findings on runs that end on their own', () => {
  it('counts an emptied task queue as finishing, not as a run the brakes had to stop', () => {
    const mk = (repeat: number, reason: 'queue_empty' | 'max_rounds') => {
      const { run } = synthRun({ scenario: 'queue', maxSteps: 5, repeat, input: () => 100 });
      return { ...run, stop_reason: reason };
    };
    const summary = summarizeConfigs([mk(0, 'queue_empty'), mk(1, 'queue_empty'), mk(2, 'max_rounds')]);
    const text = findings({ summary, fits: [], ratios: [], savings: [], volumes: [] });
    expect(text).toContain(
      'queue steps=5: 1 of 3 runs did not finish on their own (queue_empty 2 @5, max_rounds 1 @5).',
    );
  });
});

describe('aggregation', () => {
  it('Wilson interval matches the textbook values', () => {
    expect(wilson(10, 10).lo).toBeCloseTo(0.7225, 4);
    expect(wilson(10, 10).hi).toBe(1);
    expect(wilson(0, 10).lo).toBe(0);
    const w = wilson(5, 10);
    expect(w.lo).toBeCloseTo(0.2366, 4);
    expect(w.hi).toBeCloseTo(0.7634, 4);
    expect(wilson(0, 20).lo).toBe(0);
  });

  it('per step index: mean input of that call and mean cumulative input over the runs that reached it', () => {
    const acc = new StepIndexAccumulator();
    for (const { steps } of [
      synthRun({ scenario: 's', maxSteps: 5, repeat: 0, input: (n) => 100 * n }),
      synthRun({ scenario: 's', maxSteps: 5, repeat: 1, input: (n) => 300 * n, stepsToDone: 2 }),
    ])
      for (const s of steps) acc.add(s);
    const pts = pointList(acc.points());
    expect(pts.find((p) => p.step === 2)).toMatchObject({
      calls: 2,
      input_tokens: 400,
      cum_input_tokens: (300 + 900) / 2,
    });
    expect(pts.find((p) => p.step === 5)).toMatchObject({ calls: 1, input_tokens: 500, cum_input_tokens: 1500 });
    // Taken once: its columns are let go, so a second take would find none; it says so rather than give [].
    expect(() => acc.points()).toThrow('taken once');
  });
});

describe('volume and re-pricing', () => {
  it('parses volumes with units and refuses bad ones', () => {
    expect(parseVolumes('10000/day, 1000/hour, 300000/month, 500').map((v) => v.runs_per_day)).toEqual([
      10_000, 24_000, 10_000, 500,
    ]);
    // Shown as written: 2e6/month stays a month, not 66,667 a day.
    expect(parseVolumes('2e6/month, 1000/hour, 500').map((v) => v.as_written)).toEqual([
      '2,000,000 runs a month',
      '1,000 runs an hour',
      '500 runs a day',
    ]);
    expect(() => parseVolumes('10x')).toThrow(UsageError);
    expect(() => parseVolumes('-5/day')).toThrow(/positive/);
    expect(() => parseVolumes('5/fortnight')).toThrow(/unit must be one of/);
  });

  it('re-prices recorded tokens under other rates, with caching estimated from the previous prompt', () => {
    const r = synthRun({ scenario: 's', maxSteps: 5, repeat: 0, input: (n) => 1000 + 500 * (n - 1) });
    const est = new CachedTokensEstimator();
    for (const s of r.steps) est.add(s);
    // Calls 3..5 follow prompts of 1,500 / 2,000 / 2,500 tokens: cached 1,408 + 1,920 + 2,432 (128-token steps from 1,024).
    expect(est.forRun(r.run.run_id)).toBe(1408 + 1920 + 2432);
    const gpt4o = { model: 'gpt-4o', input_per_1m: 2.5, cached_input_per_1m: 1.25, output_per_1m: 10 };
    const rows = repriceRuns([r.run], [PRICE, gpt4o], (x) => est.forRun(x.run_id));
    const same = rows.find((x) => x.price_model === 'gpt-4o-mini' && !x.prompt_cache)!;
    expect(same.ratio_to_recorded).toBeCloseTo(1, 9);
    const cached = rows.find((x) => x.price_model === 'gpt-4o-mini' && x.prompt_cache)!;
    expect(cached.cache_estimated).toBe(true);
    expect(cached.cost_usd_mean).toBeCloseTo(same.cost_usd_mean - ((1408 + 1920 + 2432) * 0.075) / 1e6, 12);
    const big = rows.find((x) => x.price_model === 'gpt-4o' && !x.prompt_cache)!;
    expect(big.cost_usd_mean).toBeCloseTo((r.run.input_tokens * 2.5 + r.run.output_tokens * 10) / 1e6, 12);
  });
});

describe('groupBy', () => {
  it('groups in one pass, keys in the order they first appear, items in input order', () => {
    const g = groupBy(['b1', 'a1', 'b2', 'c1', 'a2'], (s) => s[0]!);
    expect([...g]).toEqual([
      ['b', ['b1', 'b2']],
      ['a', ['a1', 'a2']],
      ['c', ['c1']],
    ]);
  });
});

describe('max', () => {
  it('takes the largest of any number of values, where Math.max(...xs) overflows the stack', () => {
    const xs = Array.from({ length: 300_000 }, (_, i) => (i * 7919) % 300_001);
    expect(() => Math.max(...xs)).toThrow(RangeError);
    expect(max(xs)).toBe(xs.reduce((m, x) => (x > m ? x : m)));
    expect(max([])).toBe(-Infinity);
  });
});
