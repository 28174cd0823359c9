// The charts a cost review needs, in the order the report shows them: the headline cost per
// configuration, the cumulative curve in tokens and in dollars, the input of each call, the spread
// of cost per run, why runs stopped, and success against cost per success (where success is
// checked). Pure: data in, Vega-Lite specs out, aggregated first so a spec does not grow with the runs.
// Every chart that colours by configuration uses one scale (colours.ts).
import type { ConfigSummary } from '../stats/aggregate.ts';
import type { StepPoints } from '../stats/step-points.ts';
import type { QuadraticFit } from '../stats/fit.ts';
import type { RunFacts } from '../../contracts/records.ts';
import { STOP_REASONS, type StopReason } from '../../contracts/stop-reason.ts';
import { base, WIDTH, type ChartSpec } from './base.ts';
import type { ColourScale } from './colours.ts';
import { costPerRunChart, meanCostChart, successVsCostChart } from './cost.ts';
import { cumulativeCostChart, cumulativeTokensChart, perCallTokensChart } from './steps.ts';
import { chartPoints } from './thin.ts';

/** One colour per stop reason in every report: done is green, the brakes warm, failures dark. */
const REASON_COLOUR: Record<StopReason, string> = {
  done: '#3a9a4a',
  queue_empty: '#8cc084',
  max_steps: '#f28e2b',
  max_cost: '#e15759',
  timeout: '#b07aa1',
  spin: '#edc948',
  max_tokens: '#ff9da7',
  max_calls: '#9c755f',
  max_rounds: '#76b7b2',
  error: '#333333',
  interrupted: '#bab0ac',
  imported: '#79706e',
};

function stopReasons(summary: readonly ConfigSummary[], order: string[]): ChartSpec {
  const values = summary.flatMap((c) =>
    Object.entries(c.stop_reasons).map(([reason, runs]) => ({ config: c.config_id, reason, runs })),
  );
  const present = STOP_REASONS.filter((r) => values.some((v) => v.reason === r));
  return {
    name: 'stop-reasons',
    title: 'Why runs stopped',
    caption:
      'Runs per stop reason for each configuration: done = the model answered; anything else is a brake (or an error) ending the run.',
    spec: {
      ...base('Why runs stopped', 'runs per stop reason, per configuration'),
      width: WIDTH,
      data: { values },
      mark: { type: 'bar', height: { band: 0.7 } },
      encoding: {
        y: { field: 'config', type: 'nominal', title: null, sort: order },
        x: { field: 'runs', type: 'quantitative', title: 'runs', stack: 'zero', axis: { tickMinStep: 1, format: 'd' } },
        color: {
          field: 'reason',
          type: 'nominal',
          title: 'stop reason',
          scale: { domain: present, range: present.map((r) => REASON_COLOUR[r]) },
          legend: { orient: 'right', direction: 'vertical' },
        },
        tooltip: [{ field: 'config' }, { field: 'reason' }, { field: 'runs' }],
      },
    },
  };
}

/**
 * `colours`: the report's one scale (configColours of its summary), shared with the reflection, context and task-queue charts;
 * `prices`: how the costs are priced, as the subtitles say it (`at the recorded prices`, `re-priced as gpt-4o`).
 */
export function buildCharts(
  d: {
    summary: readonly ConfigSummary[];
    points: StepPoints;
    fits: readonly QuadraticFit[];
    runs: readonly RunFacts[];
    prices: string;
  },
  colours: ColourScale,
): ChartSpec[] {
  const order = d.summary.map((c) => c.config_id);
  const scenarios = [...new Set(d.summary.map((c) => c.scenario))];
  const success = successVsCostChart(d.runs, d.summary, colours);
  const points = chartPoints(d.points);
  return [
    meanCostChart(d.runs, d.summary, scenarios, colours, d.prices),
    cumulativeTokensChart(points, d.fits, scenarios, colours),
    cumulativeCostChart(points, scenarios, colours, new Map(d.summary.map((c) => [c.config_id, c.runs])), d.prices),
    perCallTokensChart(points, scenarios, colours),
    costPerRunChart(d.runs, scenarios, colours, d.prices),
    stopReasons(d.summary, order),
    ...(success ? [success] : []),
  ];
}
