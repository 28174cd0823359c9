// The Shapiro–Wilk test scripts/cost-methods.ts pretests log costs with: W and Royston's p-value, against
// scipy.stats.shapiro (which implements the same AS R94 algorithm) on small samples of both branches (n ≤ 11, n ≥ 12).
import { describe, expect, it } from 'vitest';
import { shapiroWilk } from '../scripts/shapiro-wilk.ts';

describe('Shapiro–Wilk', () => {
  it('matches scipy.stats.shapiro (to the ~1e-7 of its normal quantiles)', () => {
    // shapiro(range(1, 11)) = (0.9701646, 0.8923673)
    const even = shapiroWilk([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])!;
    expect(even.w).toBeCloseTo(0.9701646, 6);
    expect(even.p).toBeCloseTo(0.8923673, 5);
    // Twenty skewed log costs: shapiro(...) = (0.8270379, 0.0022508)
    const costs = [0.01, 0.02, 0.5, 0.03, 0.011, 0.015, 0.2, 0.013, 0.012, 0.009];
    const skewed = shapiroWilk(
      [...costs, 0.05, 0.03, 0.018, 0.02, 0.022, 0.01, 0.07, 0.03, 0.01, 0.008].map(Math.log),
    )!;
    expect(skewed.w).toBeCloseTo(0.8270379, 6);
    expect(skewed.p).toBeCloseTo(0.0022508, 6);
    // Five values (the coefficients of n ≤ 5): shapiro([1, 2, 4, 8, 30]) = (0.7403970, 0.0241934)
    const five = shapiroWilk([1, 2, 4, 8, 30])!;
    expect(five.w).toBeCloseTo(0.740397, 6);
    expect(five.p).toBeCloseTo(0.0241934, 6);
  });

  it('has no answer below four values or when they do not vary', () => {
    expect(shapiroWilk([1, 2, 3])).toBeNull();
    expect(shapiroWilk([2, 2, 2, 2])).toBeNull();
  });
});
