// The 95% intervals every report prints, against published and hand-worked values.
import { describe, expect, it } from 'vitest';
import { CONFIDENCE, meanInterval, proportionDifference, welchDifference, Z } from '../src/report/stats/intervals.ts';
import { wilson } from '../src/stats/binomial.ts';
import { tCritical } from '../src/stats/student-t.ts';

describe('intervals', () => {
  it('Student t critical values match the tables (two-sided 95%)', () => {
    expect(tCritical(1, CONFIDENCE)).toBeCloseTo(12.706, 3);
    expect(tCritical(9, CONFIDENCE)).toBeCloseTo(2.262, 3);
    expect(tCritical(30, CONFIDENCE)).toBeCloseTo(2.042, 3);
    expect(tCritical(1e6, CONFIDENCE)).toBeCloseTo(1.96, 3);
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

  it('Z is the normal quantile at the reports’ confidence, not 1.96: ∫₀^Z φ = CONFIDENCE / 2', () => {
    // Simpson's rule over the standard normal density, independent of the code under test.
    const steps = 2000;
    const h = Z / steps;
    const phi = (x: number) => Math.exp((-x * x) / 2) / Math.sqrt(2 * Math.PI);
    let area = phi(0) + phi(Z);
    for (let i = 1; i < steps; i++) area += (i % 2 ? 4 : 2) * phi(i * h);
    expect((area * h) / 3).toBeCloseTo(CONFIDENCE / 2, 12);
    // Wilson 8/10 at 95% (Newcombe 1998, table I: 0.4902–0.9433); all or none succeeded: exactly 1 or 0.
    expect(wilson(8, 10).lo).toBeCloseTo(0.4902, 4);
    expect(wilson(8, 10).hi).toBeCloseTo(0.9433, 4);
    expect(wilson(10, 10).hi).toBe(1);
    expect(wilson(0, 10).lo).toBe(0);
  });
});
