// What `bench export` adds to the standard ATIF fields: the run's own records, under `extra.loopbench`
// (the run record at the root, each step record — without the run's settings — on its agent step), so
// `bench import` of an export gives back the very records, and with them the same reports.
import type { StepRecord } from '../contracts/records.ts';
import type { AtifTrajectory } from './atif-schema.ts';

export const LOOPBENCH_KEY = 'loopbench';
/** The exported sweep's scenario order (meta.json), so an import aggregates in the same plan order. */
export const SCENARIO_ORDER_KEY = 'loopbench_scenarios';

export function scenarioOrder(t: AtifTrajectory): string[] {
  const v = t.extra?.[SCENARIO_ORDER_KEY];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

export type ExportedStep = Omit<StepRecord, 'settings'>;
