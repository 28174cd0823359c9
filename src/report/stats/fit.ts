// The quadratic finding, computed from the records: cumulative input tokens after N steps ≈ a·N + b·N²
// (each call re-sends the whole history, so call n costs ~ base + growth·n and the sum is quadratic).
import { isRefused, type StepRecord } from '../../contracts/records.ts';

export interface QuadraticFit {
  scenario: string;
  /** Tokens per step (the linear term). */
  a: number;
  /** Tokens per step² (the quadratic term: half the per-step growth of the history). */
  b: number;
  r2: number;
  /** Points the fit used (one per model call). */
  points: number;
  max_step: number;
}

/** Sufficient statistics for least squares of y on (N, N²) without intercept, so records stream through. */
export class QuadraticFitAccumulator {
  private readonly sums = new Map<
    string,
    { n2: number; n3: number; n4: number; ny: number; n2y: number; y: number; y2: number; count: number; maxN: number }
  >();

  add(scenario: string, n: number, y: number): void {
    let s = this.sums.get(scenario);
    if (!s) this.sums.set(scenario, (s = { n2: 0, n3: 0, n4: 0, ny: 0, n2y: 0, y: 0, y2: 0, count: 0, maxN: 0 }));
    s.n2 += n * n;
    s.n3 += n ** 3;
    s.n4 += n ** 4;
    s.ny += n * y;
    s.n2y += n * n * y;
    s.y += y;
    s.y2 += y * y;
    s.count++;
    s.maxN = Math.max(s.maxN, n);
  }

  addStep(r: StepRecord): void {
    // A request the gateway refused reached no model: no point of the growth curve.
    if (!isRefused(r)) this.add(r.scenario, r.step, r.cum_input_tokens);
  }

  fits(): QuadraticFit[] {
    const out: QuadraticFit[] = [];
    for (const [scenario, s] of this.sums) {
      const det = s.n2 * s.n4 - s.n3 * s.n3;
      // Fewer than two distinct step indices: a and b are not both determined.
      if (s.count < 2 || Math.abs(det) < 1e-9 * s.n2 * s.n4) continue;
      const a = (s.ny * s.n4 - s.n3 * s.n2y) / det;
      const b = (s.n2 * s.n2y - s.n3 * s.ny) / det;
      const ssRes = s.y2 - 2 * a * s.ny - 2 * b * s.n2y + a * a * s.n2 + 2 * a * b * s.n3 + b * b * s.n4;
      const ssTot = s.y2 - (s.y * s.y) / s.count;
      out.push({
        scenario,
        a,
        b,
        r2: ssTot > 0 ? 1 - Math.max(0, ssRes) / ssTot : 1,
        points: s.count,
        max_step: s.maxN,
      });
    }
    return out;
  }
}

export const predict = (f: Pick<QuadraticFit, 'a' | 'b'>, n: number) => f.a * n + f.b * n * n;
