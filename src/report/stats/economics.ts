// What each configuration costs per run, per successful task and per extra step: the figures the
// recommendation weighs, the decision table shows and summary.csv holds.
import type { ConfigSummary } from './aggregate.ts';
import type { UnseenFailures, WideSpread } from './cost-per-success.ts';
import type { Interval } from './intervals.ts';
import { predict, type QuadraticFit } from './fit.ts';
import { stepLimitFamilies } from './step-limits.ts';

export interface ConfigEconomics {
  config_id: string;
  scenario: string;
  max_steps: number | null;
  cost_per_run: number;
  /** Σ cost ÷ successes over the checked runs; null without a check, Infinity when nothing succeeded. */
  cost_per_success: number | null;
  /** Its 95% interval (cost-per-success.ts: a studentized bootstrap over runs, braked); null below two runs or when nothing succeeded. */
  cost_per_success_ci: Interval | null;
  /** When no checked run failed: the failures the data cannot show, and what the budget lets them add. */
  unseen_failures: UnseenFailures | null;
  /** When its costs spread as widely as those the interval was measured to undercover, with no budget to bound them. */
  wide_spread: WideSpread | null;
  /** Extra cost per extra step taken, between this limit and the next lower one (the next higher for the lowest). */
  marginal_step_cost: number | null;
  /** What step N+1 costs on the fitted curve, N the mean steps taken here (input at the uncached rate). */
  marginal_step_cost_fit: number | null;
}

/** Per configuration of every step-limit family; configurations outside a family get no marginal cost. */
export function configEconomics(summary: readonly ConfigSummary[], fits: readonly QuadraticFit[]): ConfigEconomics[] {
  const marginal = new Map<string, number | null>();
  for (const family of stepLimitFamilies(summary)) {
    family.forEach((c, i) => {
      const [a, b] = i === 0 ? [family[0]!, family[1]!] : [family[i - 1]!, c];
      const dSteps = b.steps.mean - a.steps.mean;
      // No more steps taken (another brake stopped both at the same step): there is no step to price.
      marginal.set(c.config_id, Math.abs(dSteps) < 1e-9 ? null : (b.cost_usd.mean - a.cost_usd.mean) / dSteps);
    });
  }
  return summary.map((c) => {
    const fit = fits.find((f) => f.scenario === c.scenario);
    const n = Math.round(c.steps.mean);
    const outPerStep = c.steps.mean > 0 ? c.output_tokens.mean / c.steps.mean : 0;
    const p = c.settings.price;
    return {
      config_id: c.config_id,
      scenario: c.scenario,
      max_steps: c.settings.limits.max_steps,
      cost_per_run: c.cost_usd.mean,
      cost_per_success: c.cost_per_success?.value ?? null,
      cost_per_success_ci: c.cost_per_success?.ci ?? null,
      unseen_failures: c.cost_per_success?.unseen_failures ?? null,
      wide_spread: c.cost_per_success?.wide_spread ?? null,
      marginal_step_cost: marginal.get(c.config_id) ?? null,
      marginal_step_cost_fit:
        fit && n > 0
          ? ((predict(fit, n + 1) - predict(fit, n)) * p.input_per_1m + outPerStep * p.output_per_1m) / 1e6
          : null,
    };
  });
}
