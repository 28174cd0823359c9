// The seed's findings, reproduced by the harness (not asserted by hand): steps ×3 → tokens ×9.2,
// 267k input tokens at 30 steps, and a 12-step limit costing about a sixth of a 30-step one.
import { describe, expect, it } from 'vitest';
import { summarizeConfigs } from '../src/report/stats/aggregate.ts';
import { gridOf, runPlans, specOf } from './helpers.ts';

async function meansBySteps(steps: number[]) {
  const ran = await runPlans(
    specOf(['seed-calibrated'], gridOf({ max_steps: null }, { max_steps: steps }), { repeat: 10 }),
  );
  const summary = summarizeConfigs(ran.map((r) => r.record));
  return Object.fromEntries(summary.map((c) => [c.settings.limits.max_steps!, c]));
}

describe('seed figures (seed-calibrated, 10 runs per configuration, default seed)', () => {
  it('10 → 30 steps: ~29,000 and ~267,000 cumulative input tokens, ratio 9.2', async () => {
    const by = await meansBySteps([10, 30]);
    const t10 = by[10]!.input_tokens.mean;
    const t30 = by[30]!.input_tokens.mean;
    expect(Math.abs(t10 / 29_000 - 1)).toBeLessThanOrEqual(0.02);
    expect(Math.abs(t30 / 267_000 - 1)).toBeLessThanOrEqual(0.02);
    expect(t30 / t10).toBeGreaterThanOrEqual(9.0);
    expect(t30 / t10).toBeLessThanOrEqual(9.4);
    expect(by[10]!.stop_reasons).toEqual({ max_steps: 10 });
  });

  it('12 → 30 steps: the 12-step limit costs about one sixth', async () => {
    const by = await meansBySteps([12, 30]);
    const ratio = by[30]!.cost_usd.mean / by[12]!.cost_usd.mean;
    expect(ratio).toBeGreaterThanOrEqual(5.5);
    expect(ratio).toBeLessThanOrEqual(6.5);
  });
});
