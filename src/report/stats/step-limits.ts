// The step limits swept, compared: configurations that differ only in MAX_STEPS form a family; within
// one, every pair of limits gives a ratio (steps ×k → input tokens ×r) and each lower limit a saving
// against the highest (cost saved next to success lost, the seed's exercise).
import { configKey } from '../../contracts/settings.ts';
import type { ConfigSummary } from './aggregate.ts';
import { predict, type QuadraticFit } from './fit.ts';
import { groupBy } from '../data/group.ts';

/** Configurations that differ only in MAX_STEPS, lowest limit first; the unit the ratio and savings tables compare within. */
export function stepLimitFamilies(summary: readonly ConfigSummary[]): ConfigSummary[][] {
  const limited = summary.filter((c) => c.settings.limits.max_steps !== null);
  const families = groupBy(limited, (c) =>
    configKey({ ...c.settings, limits: { ...c.settings.limits, max_steps: 0 } }),
  );
  return [...families.values()]
    .map((f) => f.sort((x, y) => x.settings.limits.max_steps! - y.settings.limits.max_steps!))
    .filter((f) => f.length >= 2);
}

export interface StepRatio {
  scenario: string;
  /** The two step limits compared, lower first: beside the ratios, not in them. */
  from_max_steps: number;
  to_max_steps: number;
  /** Mean steps the runs took at each limit (another brake, or finishing, may stop them before it). */
  from_steps_mean: number;
  to_steps_mean: number;
  /** Steps taken at the higher limit ÷ at the lower: what happened, whatever the limits allowed. */
  steps_ratio: number;
  /** Mean input tokens per run at the higher limit ÷ at the lower, as measured. */
  tokens_ratio: number;
  /** The same on the fitted curve, at the mean steps taken (null without a fit, or beyond the steps it was fitted on). */
  fit_tokens_ratio: number | null;
  from_config: string;
  to_config: string;
}

/** "steps taken ×k → input tokens ×r" for every pair of swept step limits. */
export function ratioTable(summary: readonly ConfigSummary[], fits: readonly QuadraticFit[]): StepRatio[] {
  const out: StepRatio[] = [];
  for (const family of stepLimitFamilies(summary)) {
    const fit = fits.find((f) => f.scenario === family[0]!.scenario);
    for (let i = 0; i < family.length; i++) {
      for (let j = i + 1; j < family.length; j++) {
        const lo = family[i]!;
        const hi = family[j]!;
        const [n0, n1] = [lo.steps.mean, hi.steps.mean];
        out.push({
          scenario: lo.scenario,
          from_max_steps: lo.settings.limits.max_steps!,
          to_max_steps: hi.settings.limits.max_steps!,
          from_steps_mean: n0,
          to_steps_mean: n1,
          steps_ratio: n0 > 0 ? n1 / n0 : NaN,
          tokens_ratio: lo.input_tokens.mean > 0 ? hi.input_tokens.mean / lo.input_tokens.mean : NaN,
          // The curve says nothing beyond the steps it was fitted on (runs that finish early).
          fit_tokens_ratio:
            fit && fit.max_step >= n1 && predict(fit, n0) > 0 ? predict(fit, n1) / predict(fit, n0) : null,
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
