// The what-if a trace import gets without asking: step (and cost) limits at the quantiles of what the
// imported runs used, so its report answers "what limit should we set?" as a sweep's does. Pure.
import { quantile } from '../stats/quantile.ts';
import type { WhatIfRequest } from './derive-configs.ts';

/** The quantiles (percent) the limits are put at. */
export const OBSERVED_QUANTILES = [50, 75, 90] as const;

/** Two significant figures, rounded up: a cost limit reads as a budget, and never cuts below the quantile. */
function budget(usd: number): number {
  if (usd <= 0) return 0;
  const unit = 10 ** (Math.floor(Math.log10(usd)) - 1);
  return Number((Math.ceil(usd / unit - 1e-9) * unit).toPrecision(2));
}

/** Limits at the observed quantiles, each below the longest (costliest) run: a limit no run reaches changes nothing. */
export function observedLimits(runs: ReadonlyArray<{ steps: number; cost_usd: number }>): WhatIfRequest[] {
  const out: WhatIfRequest[] = [];
  const steps = runs.map((r) => r.steps);
  const stepValues = [
    ...new Set(OBSERVED_QUANTILES.map((q) => Math.max(1, Math.ceil(quantile(steps, q / 100))))),
  ].filter((v) => steps.some((s) => s > v));
  if (stepValues.length) out.push({ name: 'steps', values: stepValues });
  const costs = runs.map((r) => r.cost_usd);
  const costValues = [...new Set(OBSERVED_QUANTILES.map((q) => budget(quantile(costs, q / 100))))].filter(
    (v) => v > 0 && costs.some((c) => c > v),
  );
  if (costValues.length) out.push({ name: 'cost', values: costValues });
  return out;
}
