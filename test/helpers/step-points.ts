// StepPoints for chart and context tests, made as a report makes them: from step records, through the accumulator.
import type { StepRecord } from '../../src/contracts/records.ts';
import { StepIndexAccumulator } from '../../src/report/stats/step-index.ts';
import type { StepPoint, StepPoints } from '../../src/report/stats/step-points.ts';
import { settings } from './records.ts';

/** A point of one call of one run: each configuration is one run, so the means are the values given. */
export type OneCallPoint = Pick<StepPoint, 'config_id' | 'step' | 'cum_input_tokens'> &
  Partial<Pick<StepPoint, 'scenario' | 'max_steps' | 'input_tokens' | 'cum_cost_usd'>>;

/** The points given, each fed as one step record (so one call, one run); ordered by configuration as a report orders them. */
export function stepPoints(points: readonly OneCallPoint[]): StepPoints {
  const acc = new StepIndexAccumulator();
  const made = new Map<string, StepRecord['settings']>();
  for (const p of points) {
    const scenario = p.scenario ?? 's';
    let s = made.get(p.config_id);
    if (!s) {
      const base = settings(scenario, 0);
      made.set(p.config_id, (s = { ...base, limits: { ...base.limits, max_steps: p.max_steps ?? null } }));
    }
    const record: Partial<StepRecord> = {
      run_id: p.config_id,
      config_id: p.config_id,
      scenario,
      settings: s,
      step: p.step,
      input_tokens: p.input_tokens ?? 0,
      cum_input_tokens: p.cum_input_tokens,
      cum_cost_usd: p.cum_cost_usd ?? 0,
    };
    acc.add(record as StepRecord);
  }
  return acc.points();
}

/** Every point as an object, in the columns' order. */
export const pointList = (points: StepPoints): StepPoint[] => points.configs.flatMap((c) => points.of(c));
