// The 95% intervals every report prints, against published and hand-worked values.
import { describe, expect, it } from 'vitest';
import { CONFIDENCE, costPerSuccess, meanInterval, proportionDifference, welchDifference, Z } from '../src/report/stats/intervals.ts';
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

  describe('cost per successful task: Σ cost ÷ successes, the delta method on the log scale', () => {
    // Hand-worked (t from R: qt(0.975, 3) = 3.182446, qt(0.975, 4) = 2.776445):
    //   costs 1,2,3,4, success y,n,y,y: c̄ = 2.5, p = 0.75, R = 10/3; s_c² = 5/3, s_p² = 1/4, s_cp = 1/6;
    //   Var(ln R) = (5/3)/(4·6.25) + (1/4)/(4·0.5625) − 2·(1/6)/(4·2.5·0.75) = 0.066667 + 0.111111 − 0.044444 = 2/15;
    //   R·exp(±3.182446·√(2/15)) = 1.042798 … 10.655092.
    it('counts the spread of cost, of success and their covariance', () => {
      const c = costPerSuccess([1, 2, 3, 4].map((cost_usd, i) => ({ cost_usd, success: i !== 1 })))!;
      expect(c.value).toBeCloseTo(10 / 3, 12);
      expect(c.ci!.lo).toBeCloseTo(1.042798, 5);
      expect(c.ci!.hi).toBeCloseTo(10.655092, 5);
    });

    it('with every run a success, the spread of cost alone: not the point estimate as its lower bound', () => {
      // Costs 1..5: Var(ln R) = 2.5 / (5·9) = 1/18; 3·exp(±2.776445/√18) = 1.559239 … 5.772046.
      const c = costPerSuccess([1, 2, 3, 4, 5].map((cost_usd) => ({ cost_usd, success: true })))!;
      expect(c.value).toBe(3);
      expect(c.ci!.lo).toBeCloseTo(1.559239, 5);
      expect(c.ci!.hi).toBeCloseTo(5.772046, 5);
      expect(c.ci!.lo).toBeGreaterThan(0);
    });

    it('with the same cost every run, the success rate alone', () => {
      // 3 of 5 at $2: Var(ln R) = (0.3/0.36)/5 = 1/6; (10/3)·exp(±2.776445/√6) = 1.073038 … 10.354816.
      const c = costPerSuccess([1, 0, 1, 0, 1].map((s) => ({ cost_usd: 2, success: s === 1 })))!;
      expect(c.ci!.lo).toBeCloseTo(1.073038, 5);
      expect(c.ci!.hi).toBeCloseTo(10.354816, 5);
    });

    it('unchecked runs do not count; none succeeded is Infinity; one run has no interval', () => {
      expect(costPerSuccess([{ cost_usd: 1, success: null }])).toBeNull();
      expect(costPerSuccess([{ cost_usd: 1, success: false }, { cost_usd: 1, success: false }])).toEqual({ value: Infinity, ci: null });
      expect(costPerSuccess([{ cost_usd: 1, success: true }])).toEqual({ value: 1, ci: null });
      expect(costPerSuccess([{ cost_usd: 9, success: null }, { cost_usd: 2, success: true }, { cost_usd: 2, success: true }])).toEqual({ value: 2, ci: { lo: 2, hi: 2 } });
      expect(costPerSuccess([{ cost_usd: 0, success: true }, { cost_usd: 0, success: false }])).toEqual({ value: 0, ci: { lo: 0, hi: 0 } });
    });
  });
});
