// A chart of a configuration's step indices draws at most MAX_CHART_STEPS points: a line of a
// million steps is no clearer than one of a few hundred, and drawing each one made a 1M-step
// import's report take minutes and gigabytes. The first and last steps are always kept (the end
// labels read the last); steps_by_index.csv keeps every step.
import { groupBy } from '../data/group.ts';
import type { StepPoint } from '../stats/aggregate.ts';

export const MAX_CHART_STEPS = 500;

/** The points of each configuration, evenly thinned to at most `max` per configuration, in their order. */
export function chartPoints(points: readonly StepPoint[], max = MAX_CHART_STEPS): readonly StepPoint[] {
  const byConfig = groupBy(points, (p) => p.config_id);
  if ([...byConfig.values()].every((l) => l.length <= max)) return points;
  const keep = new Set<StepPoint>();
  for (const list of byConfig.values()) {
    if (list.length <= max) list.forEach((p) => keep.add(p));
    else for (let i = 0; i < max; i++) keep.add(list[Math.round((i * (list.length - 1)) / (max - 1))]!);
  }
  return points.filter((p) => keep.has(p));
}

/** Steps 1..last to draw a fitted curve at: each of them up to `max`, else `max` evenly spaced, the last included. */
export function chartSteps(last: number, max = MAX_CHART_STEPS): number[] {
  if (last <= max) return Array.from({ length: last }, (_, i) => i + 1);
  return Array.from({ length: max }, (_, i) => 1 + Math.round((i * (last - 1)) / (max - 1)));
}
