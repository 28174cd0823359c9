// A configuration with more step indices than a chart can show is drawn at evenly spaced steps,
// its first and last kept; a sweep of ordinary length is drawn whole (its charts unchanged).
import { describe, expect, it } from 'vitest';
import { chartPoints, chartSteps } from '../src/report/charts/thin.ts';
import { pointList, stepPoints } from './helpers/step-points.ts';

const point = (config_id: string, step: number) => ({
  config_id,
  step,
  input_tokens: step,
  cum_input_tokens: step,
  cum_cost_usd: step,
});

describe('chart thinning', () => {
  it('draws every step of a configuration with at most the limit', () => {
    const points = stepPoints([
      ...Array.from({ length: 30 }, (_, i) => point('a', i + 1)),
      ...Array.from({ length: 5 }, (_, i) => point('b', i + 1)),
    ]);
    expect(chartPoints(points, 30)).toEqual(pointList(points));
    expect(chartSteps(30, 30)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  });

  it('thins a long configuration to the limit, first and last kept, and leaves a short one whole', () => {
    const long = Array.from({ length: 1_000_000 }, (_, i) => point('long', i + 1));
    const short = Array.from({ length: 12 }, (_, i) => point('short', i + 1));
    const drawn = chartPoints(stepPoints([...long, ...short]), 500);
    const steps = drawn.filter((p) => p.config_id === 'long').map((p) => p.step);
    expect(steps).toHaveLength(500);
    expect(steps[0]).toBe(1);
    expect(steps.at(-1)).toBe(1_000_000);
    expect(steps.every((s, i) => i === 0 || s > steps[i - 1]!)).toBe(true);
    expect(drawn.filter((p) => p.config_id === 'short')).toEqual(pointList(stepPoints(short)));
    const fitted = chartSteps(1_000_000, 500);
    expect(fitted).toHaveLength(500);
    expect([fitted[0], fitted.at(-1)]).toEqual([1, 1_000_000]);
  });
});
