// The queue-explosion chart: mean queue length after each round, one line per configuration.
// Pure: rows in, Vega-Lite spec out; build.ts renders it with the other charts.
import { CHART_FONT, type ChartSpec } from './base.ts';
import type { RoundRow } from '../stats/taskqueue.ts';
import { colourBy, type ColourScale } from './colours.ts';

export function queueLengthChart(rows: readonly RoundRow[], colours: ColourScale): ChartSpec {
  const values = rows.map((r) => ({
    id: r.config_id,
    config: colours.labels.get(r.config_id) ?? r.config_id,
    round: r.round,
    queue: r.queue_length_mean,
    runs: r.runs,
  }));
  return {
    name: 'taskqueue-queue-length',
    title: 'Task queue length per round',
    caption:
      'Tasks waiting after each round (round 0: the initial tasks), mean over runs that reached the round. A rising line is queue explosion; each constraint should flatten it. Configurations that differ only in the round limit share their first rounds, so only the longest is drawn.',
    spec: {
      $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
      title: { text: 'Task queue length per round', subtitle: 'mean over runs that reached the round' },
      width: 560,
      height: 300,
      config: { font: CHART_FONT, background: 'white', legend: { labelLimit: 0 } },
      data: { values },
      mark: { type: 'line', point: true, strokeWidth: 2 },
      encoding: {
        x: { field: 'round', type: 'quantitative', title: 'round', axis: { tickMinStep: 1 } },
        y: { field: 'queue', type: 'quantitative', title: 'tasks in the queue' },
        color: colourBy(
          'config',
          colours,
          values.map((v) => v.config),
          { orient: 'bottom', direction: 'vertical' },
        ),
        detail: { field: 'id', type: 'nominal' },
        tooltip: [
          { field: 'id', title: 'configuration' },
          { field: 'round' },
          { field: 'queue', format: '.1f' },
          { field: 'runs' },
        ],
      },
    },
  };
}
