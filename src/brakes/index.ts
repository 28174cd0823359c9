import type { LimitKey, Limits } from '../contracts/limits.ts';
import type { Brake } from './brake.ts';
import { cycleBrake } from './cycle.ts';
import { maxCallsBrake } from './max-calls.ts';
import { maxRoundsBrake } from './max-rounds.ts';
import { maxCostBrake } from './max-cost.ts';
import { maxStepsBrake } from './max-steps.ts';
import { maxTokensBrake } from './max-tokens.ts';
import { nearDuplicateBrake } from './near-duplicate.ts';
import { sameErrorBrake } from './same-error.ts';
import { spinBrake } from './spin.ts';
import { timeoutBrake } from './timeout.ts';

/** Each row of the table of brakes (src/contracts/limits.ts) → the brake it makes; a row without one
 *  does not compile. Listed in the order they are checked when several would fire at once. */
const FACTORIES: { readonly [K in LimitKey]: (limit: number) => Brake } = {
  max_steps: maxStepsBrake,
  max_rounds: maxRoundsBrake,
  max_calls: maxCallsBrake,
  timeout_s: timeoutBrake,
  max_cost_usd: maxCostBrake,
  max_tokens: maxTokensBrake,
  max_repeat: spinBrake,
  max_cycle: cycleBrake,
  max_same_error: sameErrorBrake,
  near_duplicate: nearDuplicateBrake,
};

/** The brakes a run's limits switch on, in the order they are checked. */
export function brakesFor(limits: Limits): Brake[] {
  return Object.entries(FACTORIES).flatMap(([key, make]) => {
    const limit = limits[key as LimitKey];
    return limit === null || limit === undefined ? [] : [make(limit)];
  });
}
