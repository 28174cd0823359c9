// The queue-explosion chart: mean queue length after each round, one line per configuration.
// Pure: rows in, Vega-Lite spec out (rendered wherever the other charts are).
import type { TopLevelSpec } from 'vega-lite';
import type { RoundRow } from './taskqueue.ts';

export interface TaskqueueChart {
  name: string;
  title: string;
  caption: string;
  spec: TopLevelSpec;
}

export function queueLengthChart(rows: readonly RoundRow[]): TaskqueueChart {
  return {
    name: 'taskqueue-queue-length',
    title: 'Task queue length per round',
    caption: 'Tasks waiting after each round (round 0: the initial tasks), mean over runs that reached the round. A rising line is queue explosion; each constraint should flatten it.',
    spec: {
      $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
      title: { text: 'Task queue length per round', subtitle: 'mean over runs that reached the round' },
      width: 560,
      height: 300,
      config: { legend: { labelLimit: 0 } },
      data: { values: rows.map((r) => ({ config: r.config_id, round: r.round, queue: r.queue_length_mean, runs: r.runs })) },
      mark: { type: 'line', point: true, strokeWidth: 2 },
      encoding: {
        x: { field: 'round', type: 'quantitative', title: 'round', axis: { tickMinStep: 1 } },
        y: { field: 'queue', type: 'quantitative', title: 'tasks in the queue' },
        color: { field: 'config', type: 'nominal', title: null, legend: { orient: 'bottom', direction: 'vertical' } },
        tooltip: [{ field: 'config' }, { field: 'round' }, { field: 'queue', format: '.1f' }, { field: 'runs' }],
      },
    },
  };
}
