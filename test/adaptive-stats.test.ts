// The decision statistics of adaptive repeats on known data, and the error rate of the whole
// sequential procedure, simulated on seeded Bernoulli draws.
import { describe, expect, it } from 'vitest';
import { decideBudgets, sampling } from '../src/gate/adaptive.ts';
import { evaluateAssertions } from '../src/gate/assertions.ts';
import {
  binomialCdf,
  meanInterval,
  normalQuantile,
  quantileInterval,
  runsToBoundQuantile,
  sequentialDesign,
  studentTQuantile,
  successInterval,
} from '../src/gate/decision-stats.ts';
import type { RunRecord } from '../src/contracts/records.ts';
import { rng } from '../src/sim/rng.ts';

const run = (i: number, over: Partial<RunRecord>): RunRecord =>
  ({ run_id: `s_r${String(i).padStart(3, '0')}`, scenario: 's', stop_reason: 'done', steps: 4, calls: 4, input_tokens: 1000, output_tokens: 200, cost_usd: 0.001, success: true, ...over }) as RunRecord;

describe('decision statistics on known values', () => {
  it('normal and Student t quantiles match the tables', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 5);
    expect(normalQuantile(0.995)).toBeCloseTo(2.575829, 5);
    expect(normalQuantile(0.0025)).toBeCloseTo(-2.807034, 5);
    expect(studentTQuantile(0.975, 9)).toBeCloseTo(2.262157, 5);
    expect(studentTQuantile(0.995, 4)).toBeCloseTo(4.604095, 5);
    expect(studentTQuantile(0.975, 1)).toBeCloseTo(12.7062, 3);
    expect(studentTQuantile(0.975, 1000)).toBeCloseTo(1.962339, 4);
  });

  it('binomial CDF, Wilson and t intervals on textbook data', () => {
    expect(binomialCdf(3, 10, 0.5)).toBeCloseTo(176 / 1024, 12);
    expect(binomialCdf(9, 10, 0.95)).toBeCloseTo(1 - 0.95 ** 10, 12);
    const w = successInterval(8, 10, 0.95);
    expect(w.lo).toBeCloseTo(0.4902, 4);
    expect(w.hi).toBeCloseTo(0.9433, 4);
    // 1..10: mean 5.5, s = 3.0277, t(0.975, 9) = 2.2622 → 5.5 ± 2.1659.
    const m = meanInterval([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.95);
    expect(m.lo).toBeCloseTo(3.3341, 3);
    expect(m.hi).toBeCloseTo(7.6659, 3);
    expect(meanInterval([5], 0.95)).toEqual({ lo: -Infinity, hi: Infinity });
  });

  it('order-statistic interval for a quantile: x(2)..x(9) for the median of 10 (97.9 %), p95 unbounded above in 20 runs', () => {
    const xs = [10, 9, 8, 7, 6, 5, 4, 3, 2, 1];
    expect(quantileInterval(xs, 0.5, 0.95)).toEqual({ lo: 2, hi: 9 });
    expect(quantileInterval(Array.from({ length: 20 }, (_, i) => i), 0.95, 0.95).hi).toBe(Infinity);
    // The largest of n values bounds p95 once 0.95^n ≤ α/2: 72 runs at 95 %, 117 at 99.5 %.
    expect(runsToBoundQuantile(0.95, 0.95)).toBe(72);
    expect(runsToBoundQuantile(0.95, 0.995)).toBe(117);
    expect(quantileInterval(Array.from({ length: 72 }, (_, i) => i), 0.95, 0.95).hi).toBe(71);
    expect(quantileInterval(Array.from({ length: 71 }, (_, i) => i), 0.95, 0.95).hi).toBe(Infinity);
  });

  it('plans ceil((max − min) / batch) + 1 looks and splits α evenly over them', () => {
    expect(sequentialDesign({ min: 10, max: 100, batch: 10, confidence: 0.95 })).toEqual({ looks: [10, 20, 30, 40, 50, 60, 70, 80, 90, 100], perLookConfidence: 0.995 });
    const d = sequentialDesign({ min: 10, max: 35, batch: 10, confidence: 0.9 });
    expect(d.looks).toEqual([10, 20, 30, 35]);
    expect(d.perLookConfidence).toBeCloseTo(0.975, 12);
    expect(sequentialDesign({ min: 40, max: 40, batch: 10, confidence: 0.95 })).toEqual({ looks: [40], perLookConfidence: 0.95 });
  });
});

describe('deciding budgets', () => {
  it('decides a statistical budget only when its interval is wholly on one side of the limit', () => {
    const runs = Array.from({ length: 20 }, (_, i) => run(i, { input_tokens: 1000 + (i % 5) * 10, steps: 3 + (i % 2) }));
    const by = (a: Parameters<typeof decideBudgets>[0]) => decideBudgets(a, runs, 0.995).map((d) => d.decision);
    expect(by({ input_tokens: { mean: 1100 } })).toEqual(['pass']);
    expect(by({ input_tokens: { mean: 1000 } })).toEqual(['fail']);
    expect(by({ input_tokens: { mean: 1020 } })).toEqual(['open']);
    expect(by({ steps: { p50: 4 } })).toEqual(['pass']);
    expect(by({ steps: { p50: 2 } })).toEqual(['fail']);
    expect(decideBudgets({ steps: { p95: 100 } }, runs, 0.995)[0]).toMatchObject({ decision: 'open', needs: 'an upper bound on p95 needs ≥ 117 runs' });
    // Every-run budgets: one breaking run decides them; none does not hold sampling open.
    expect(by({ steps: { max: 4 }, stop_reason: ['done'] })).toEqual(['pass', 'pass']);
    expect(by({ steps: { max: 3 } })).toEqual(['fail']);
    // 20/20 successes: the 99.5 % Wilson lower bound is 0.717 — not yet 0.9; 0 of 20 is decided below it.
    expect(by({ success_rate: { min: 0.9 } })).toEqual(['open']);
    expect(decideBudgets({ success_rate: { min: 0.9 } }, runs.map((r) => ({ ...r, success: false })), 0.995)[0]!.decision).toBe('fail');
  });

  it('says how many runs it took and why it stopped', () => {
    const r = { min: 10, max: 100, batch: 10, confidence: 0.95 };
    const ok = Array.from({ length: 100 }, (_, i) => run(i, {}));
    expect(sampling('s', { success_rate: { min: 0.9 } }, ok, r)).toEqual({ outcome: { scenario: 's', runs: 80, stopped: 'decided', reason: 'decided after 80 runs: success_rate ≥ 0.9 holds at 95 %' } });
    expect(sampling('s', { success_rate: { min: 0.9 } }, ok.slice(0, 35), r)).toEqual({ nextLook: 40 });
    const broken = ok.map((x, i) => (i === 3 ? { ...x, stop_reason: 'max_steps' as const } : x));
    expect(sampling('s', { stop_reason: ['done'], input_tokens: { mean: 5000 } }, broken, r)).toMatchObject({ outcome: { runs: 10, reason: 'decided after 10 runs: stop_reason in [done] breached by a run' } });
    expect(sampling('s', { cost_usd: { p95: 1 } }, ok, r)).toMatchObject({
      outcome: { runs: 100, stopped: 'max', reason: 'ran to max 100 runs: cost_usd p95 ≤ $1.00 undecided at 95 % (an upper bound on p95 needs ≥ 117 runs)' },
    });
  });
});

describe('error rate of the sequential procedure', () => {
  // A scenario whose true success rate equals its bar must not pass more often than the stated error
  // rate: each look is a two-sided Wilson interval at 1 − α/looks, so a false pass has probability
  // ≤ α/(2·looks) per look and ≤ α/2 = 2.5 % over all of them. Tolerance: three binomial standard
  // deviations of a 2.5 % rate over 1,000 checks, √(0.025·0.975/1000) ≈ 0.49 % → at most 4.0 %.
  // Without the correction (every look at 95 %) the same checks pass 5.6 % of the time.
  const r = { min: 10, max: 100, batch: 10, confidence: 0.95 };
  const bar = 0.9;
  const check = (seed: number) => {
    const draw = rng('adaptive-error-rate', seed);
    const runs = Array.from({ length: r.max }, (_, i) => run(i, { success: draw() < bar }));
    const s = sampling('s', { success_rate: { min: bar } }, runs, r);
    if (!('outcome' in s)) throw new Error('every look has its runs');
    const [verdict] = evaluateAssertions('s', { success_rate: { min: bar } }, runs.slice(0, s.outcome.runs), sequentialDesign(r).perLookConfidence);
    return { pass: verdict!.pass, stopped: s.outcome.stopped };
  };

  it('1,000 seeded checks of a scenario at its bar pass at most 2.5 % + 1.5 % of the time, and most run to max', () => {
    const results = Array.from({ length: 1000 }, (_, i) => check(i + 1));
    const passRate = results.filter((x) => x.pass).length / results.length;
    expect(passRate).toBeLessThanOrEqual(0.025 + 3 * Math.sqrt((0.025 * 0.975) / 1000));
    expect(results.filter((x) => x.stopped === 'max').length).toBeGreaterThan(900);
  });

  it('is deterministic for a seed', () => {
    expect(Array.from({ length: 50 }, (_, i) => check(i + 1))).toEqual(Array.from({ length: 50 }, (_, i) => check(i + 1)));
  });
});
