// A chart of a configuration's step indices draws at most MAX_CHART_STEPS points: a line of a
// million steps is no clearer than one of a few hundred, and drawing each one made a 1M-step
// import's report take minutes and gigabytes. The first and last steps are always kept (the end
// labels read the last); steps_by_index.csv keeps every step.
import type { StepPoint, StepPoints } from '../stats/step-points.ts';

export const MAX_CHART_STEPS = 500;

/**
 * The points of each configuration, evenly thinned to at most `max` per configuration, in their order, as
 * objects: only the drawn ones are made.
 */
export function chartPoints(points: StepPoints, max = MAX_CHART_STEPS): StepPoint[] {
  return points.configs.flatMap((c) => {
    const n = c.end - c.start;
    if (n <= max) return points.of(c);
    return Array.from({ length: max }, (_, i) => points.point(c.start + Math.round((i * (n - 1)) / (max - 1))));
  });
}

/** Steps 1..last to draw a fitted curve at: each of them up to `max`, else `max` evenly spaced, the last included. */
export function chartSteps(last: number, max = MAX_CHART_STEPS): number[] {
  if (last <= max) return Array.from({ length: last }, (_, i) => i + 1);
  return Array.from({ length: max }, (_, i) => 1 + Math.round((i * (last - 1)) / (max - 1)));
}
