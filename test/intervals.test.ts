// The 95% intervals the charts and `bench diff` print, against published values.
import { describe, expect, it } from 'vitest';
import { costPerSuccess, meanInterval, proportionDifference, tCritical, welchDifference } from '../src/report/stats/intervals.ts';

describe('intervals', () => {
  it('Student t critical values match the tables (two-sided 95%)', () => {
    expect(tCritical(1)).toBeCloseTo(12.706, 3);
    expect(tCritical(9)).toBeCloseTo(2.262, 3);
    expect(tCritical(30)).toBeCloseTo(2.042, 3);
    expect(tCritical(1e6)).toBeCloseTo(1.96, 3);
  });

  it('a mean has a t interval; one value has none', () => {
    const m = meanInterval([1, 2, 3]);
    expect(m.mean).toBe(2);
    expect(m.ci!.hi - 2).toBeCloseTo(4.303 * (1 / Math.sqrt(3)), 3);
    expect(meanInterval([5]).ci).toBeNull();
  });

  it("Welch's interval for a difference of means (unequal variances, Satterthwaite df)", () => {
    const a = [1, 2, 3, 4];
    const b = [2, 4, 6, 8, 10];
    const { diff, ci } = welchDifference(a, b);
    expect(diff).toBe(3.5);
    // se² = 1.6667/4 + 10/5; df = 5.52 → t = 2.499 (R: t.test(b, a)$conf.int = -0.385, 7.385)
    expect(ci!.lo).toBeCloseTo(-0.385, 2);
    expect(ci!.hi).toBeCloseTo(7.385, 2);
    expect(welchDifference([2, 2], [3, 3]).ci).toEqual({ lo: 1, hi: 1 });
  });

  it("Newcombe's hybrid score interval for a difference of proportions (Newcombe 1998, example: 56/70 vs 48/80)", () => {
    const { diff, ci } = proportionDifference(48, 80, 56, 70);
    expect(diff).toBeCloseTo(0.2, 12);
    expect(ci.lo).toBeCloseTo(0.0524, 4);
    expect(ci.hi).toBeCloseTo(0.3339, 4);
  });

  it('cost per successful task is total cost ÷ successes; none when nothing succeeded', () => {
    const runs = [true, false, true, true].map((success) => ({ cost_usd: 1, success }));
    const c = costPerSuccess(runs)!;
    expect(c.value).toBeCloseTo(4 / 3, 12);
    expect(c.ci!.lo).toBeLessThan(c.value);
    expect(c.ci!.hi).toBeGreaterThan(c.value);
    expect(costPerSuccess([{ cost_usd: 1, success: false }])).toBeNull();
    // Every run succeeds: the interval is the mean cost's.
    const all = costPerSuccess([1, 2, 3].map((cost_usd) => ({ cost_usd, success: true })))!;
    expect(all.ci!.hi).toBeCloseTo(meanInterval([1, 2, 3]).ci!.hi, 12);
  });
});
