// The quadratic finding, computed from the records: cumulative input tokens after N steps ≈ a·N + b·N²
// (each call re-sends the whole history, so call n costs ~ base + growth·n and the sum is quadratic).
import type { StepRecord } from '../contracts/records.ts';
import { configKey } from '../contracts/settings.ts';
import type { ConfigSummary } from './aggregate.ts';
import { groupBy } from './group.ts';

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
  private readonly sums = new Map<string, { n2: number; n3: number; n4: number; ny: number; n2y: number; y: number; y2: number; count: number; maxN: number }>();

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
    this.add(r.scenario, r.step, r.cum_input_tokens);
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
      out.push({ scenario, a, b, r2: ssTot > 0 ? 1 - Math.max(0, ssRes) / ssTot : 1, points: s.count, max_step: s.maxN });
    }
    return out;
  }
}

export const predict = (f: Pick<QuadraticFit, 'a' | 'b'>, n: number) => f.a * n + f.b * n * n;

/** Configurations that differ only in MAX_STEPS, lowest limit first; the unit the ratio and savings tables compare within. */
export function stepLimitFamilies(summary: readonly ConfigSummary[]): ConfigSummary[][] {
  const limited = summary.filter((c) => c.settings.limits.max_steps !== null);
  const families = groupBy(limited, (c) => configKey({ ...c.settings, limits: { ...c.settings.limits, max_steps: 0 } }));
  return [...families.values()]
    .map((f) => f.sort((x, y) => x.settings.limits.max_steps! - y.settings.limits.max_steps!))
    .filter((f) => f.length >= 2);
}

export interface StepRatio {
  scenario: string;
  from_steps: number;
  to_steps: number;
  /** to_steps / from_steps */
  steps_ratio: number;
  /** Mean input tokens per run at to_steps / at from_steps, as measured. */
  tokens_ratio: number;
  /** The same ratio on the fitted curve (null without a fit). */
  fit_tokens_ratio: number | null;
  from_config: string;
  to_config: string;
}

/** "steps ×k → tokens ×r" for every pair of swept step limits. */
export function ratioTable(summary: readonly ConfigSummary[], fits: readonly QuadraticFit[]): StepRatio[] {
  const out: StepRatio[] = [];
  for (const family of stepLimitFamilies(summary)) {
    const fit = fits.find((f) => f.scenario === family[0]!.scenario);
    for (let i = 0; i < family.length; i++) {
      for (let j = i + 1; j < family.length; j++) {
        const lo = family[i]!;
        const hi = family[j]!;
        const [n0, n1] = [lo.settings.limits.max_steps!, hi.settings.limits.max_steps!];
        out.push({
          scenario: lo.scenario,
          from_steps: n0,
          to_steps: n1,
          steps_ratio: n1 / n0,
          tokens_ratio: lo.input_tokens.mean > 0 ? hi.input_tokens.mean / lo.input_tokens.mean : NaN,
          // The curve says nothing beyond the steps it was fitted on (runs that finish early).
          fit_tokens_ratio: fit && fit.max_step >= n1 ? predict(fit, n1) / predict(fit, n0) : null,
          from_config: lo.config_id,
          to_config: hi.config_id,
        });
      }
    }
  }
  return out;
}

export interface StepLimitSaving {
  scenario: string;
  config_id: string;
  max_steps: number;
  highest_steps: number;
  highest_config: string;
  /** 1 − mean cost here / mean cost at the highest limit. */
  cost_saved: number;
  cost_usd_mean: number;
  highest_cost_usd_mean: number;
  runs: number;
  /** Runs at the highest limit: with --repeat auto it may differ from `runs`, and then counts do not compare. */
  highest_runs: number;
  /** Successes lost against the highest limit (null when the scenario checks no answer). */
  successes_lost: number | null;
  highest_successes: number | null;
  success_rate_lost: number | null;
}

/** The seed's exercise: each lower step limit against the highest — cost saved next to success lost. */
export function stepLimitSavings(summary: readonly ConfigSummary[]): StepLimitSaving[] {
  const out: StepLimitSaving[] = [];
  for (const family of stepLimitFamilies(summary)) {
    const top = family[family.length - 1]!;
    for (const c of family.slice(0, -1)) {
      const checked = c.successes !== null && top.successes !== null;
      out.push({
        scenario: c.scenario,
        config_id: c.config_id,
        max_steps: c.settings.limits.max_steps!,
        highest_steps: top.settings.limits.max_steps!,
        highest_config: top.config_id,
        cost_saved: top.cost_usd.mean > 0 ? 1 - c.cost_usd.mean / top.cost_usd.mean : 0,
        cost_usd_mean: c.cost_usd.mean,
        highest_cost_usd_mean: top.cost_usd.mean,
        runs: c.runs,
        highest_runs: top.runs,
        successes_lost: checked ? top.successes! - c.successes! : null,
        highest_successes: top.successes,
        success_rate_lost: checked ? top.success_rate! - c.success_rate! : null,
      });
    }
  }
  return out;
}
