import type { Limits } from '../contracts/settings.ts';
import type { Brake } from './brake.ts';
import { maxCallsBrake } from './max-calls.ts';
import { maxRoundsBrake } from './max-rounds.ts';
import { maxCostBrake } from './max-cost.ts';
import { maxStepsBrake } from './max-steps.ts';
import { maxTokensBrake } from './max-tokens.ts';
import { spinBrake } from './spin.ts';
import { timeoutBrake } from './timeout.ts';

/** The brakes a run's limits switch on, in the order they are checked. */
export function brakesFor(limits: Limits): Brake[] {
  const out: Brake[] = [];
  if (limits.max_steps !== null) out.push(maxStepsBrake(limits.max_steps));
  if (limits.max_rounds !== null) out.push(maxRoundsBrake(limits.max_rounds));
  if (limits.max_calls !== null) out.push(maxCallsBrake(limits.max_calls));
  if (limits.timeout_s !== null) out.push(timeoutBrake(limits.timeout_s));
  if (limits.max_cost_usd !== null) out.push(maxCostBrake(limits.max_cost_usd));
  if (limits.max_tokens !== null) out.push(maxTokensBrake(limits.max_tokens));
  if (limits.max_repeat !== null) out.push(spinBrake(limits.max_repeat));
  return out;
}
