// Vega-Lite specs for the five charts a cost review needs. Pure: data in, spec out; the data is
// aggregated here (per step index, per configuration), so a spec's size does not grow with the runs.
import type { TopLevelSpec } from 'vega-lite';
import type { ConfigSummary, StepPoint } from './aggregate.ts';
import type { QuadraticFit } from './fit.ts';
import { predict } from './fit.ts';
import { fitFormula } from './findings.ts';
import type { RunFacts } from '../contracts/records.ts';
import { STOP_REASONS, type StopReason } from '../contracts/stop-reason.ts';
import { groupByConfig, naturalOrder } from './aggregate.ts';
import { box } from './stats.ts';

export const CHART_FONT = 'DejaVu Sans';

export interface ChartSpec {
  /** File stem under charts/ and the id in the HTML. */
  name: string;
  title: string;
  /** One sentence under the chart: how to read it. */
  caption: string;
  spec: TopLevelSpec;
}

const WIDTH = 560;
const HEIGHT = 300;
const PANEL_HEIGHT = 220;
/** Steps are whole numbers: no 2.2 ticks on a short run. */
const STEP_AXIS = { tickMinStep: 1, format: 'd' };

const config = {
  font: CHART_FONT,
  background: 'white',
  title: { fontSize: 15, anchor: 'start' as const, subtitleFontSize: 11, subtitleColor: '#555' },
  axis: { labelFontSize: 11, titleFontSize: 12, labelLimit: 420 },
  header: { labelFontSize: 13, labelFontWeight: 'bold' as const, labelAngle: 0, labelAlign: 'left' as const, labelOrient: 'top' as const, labelAnchor: 'start' as const, title: null },
  legend: { labelFontSize: 11, titleFontSize: 11, labelLimit: 480, orient: 'bottom' as const, direction: 'vertical' as const },
  view: { stroke: null },
};

const base = (title: string, subtitle: string) => ({
  $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
  title: { text: title, subtitle },
  config,
});

/** One panel per scenario, each with its own scale: a 900-token run and a 270k-token run do not share an axis. */
const byScenario = (independent: Array<'x' | 'y'>) => ({
  facet: { row: { field: 'scenario', type: 'nominal' as const, title: null, sort: null } },
  resolve: { scale: Object.fromEntries(independent.map((c) => [c, 'independent' as const])) },
});

/** Longer end labels (many configurations ending together) say how many; the tooltip lists them. */
const END_LABEL_CHARS = 36;

interface LineEnd {
  scenario: string;
  step: number;
  tokens: number;
  label: string;
  /** Every configuration that ends here, for the tooltip. */
  configs: string;
  /** Which side of its dot the label goes: towards the middle of the panel, so it stays inside. */
  side: 'left' | 'right';
}

/**
 * Where each configuration's line ends, labelled: a lower step limit's line lies under a higher
 * one's until it stops, so without its end marked a reader cannot see where it stopped. Lines that
 * end at the same point share one label.
 */
export function lineEnds(points: readonly StepPoint[]): LineEnd[] {
  const last = new Map<string, StepPoint>();
  const widest = new Map<string, number>();
  for (const p of points) {
    if ((last.get(p.config_id)?.step ?? -1) < p.step) last.set(p.config_id, p);
    widest.set(p.scenario, Math.max(widest.get(p.scenario) ?? 0, p.step));
  }
  const ends = new Map<string, { scenario: string; step: number; tokens: number; names: string[] }>();
  for (const p of last.values()) {
    const tokens = Math.round(p.cum_input_tokens);
    const key = `${p.scenario}\u0000${p.step}\u0000${tokens}`;
    const name = p.config_id.startsWith(`${p.scenario} `) ? p.config_id.slice(p.scenario.length + 1) : p.config_id;
    const end = ends.get(key);
    if (end) end.names.push(name);
    else ends.set(key, { scenario: p.scenario, step: p.step, tokens, names: [name] });
  }
  return [...ends.values()].map(({ names, ...e }) => {
    const configs = names.sort(naturalOrder).join(', ');
    return { ...e, label: configs.length <= END_LABEL_CHARS ? configs : sharedLabel(names), configs, side: e.step > widest.get(e.scenario)! / 2 ? 'left' : 'right' };
  });
}

/** `steps=12 · 2 configurations`: the settings every name shares (config ids are `key=value` words), and how many. */
function sharedLabel(names: readonly string[]): string {
  const [first, ...rest] = names.map((n) => n.split(' '));
  const common = first!.filter((w) => rest.every((r) => r.includes(w)));
  const count = `${names.length} configurations`;
  return common.length ? `${common.join(' ')} · ${count}` : count;
}

function cumulativeTokens(points: readonly StepPoint[], fits: readonly QuadraticFit[], order: string[]): ChartSpec {
  const measured = points.map((p) => ({ scenario: p.scenario, series: p.config_id, kind: 'measured (mean over runs)', step: p.step, tokens: Math.round(p.cum_input_tokens) }));
  const fitted = fits.flatMap((f) =>
    Array.from({ length: f.max_step }, (_, i) => ({ scenario: f.scenario, series: `fit ${f.scenario}: ${fitFormula(f)}`, kind: 'fit a·N + b·N²', step: i + 1, tokens: Math.round(predict(f, i + 1)) })),
  );
  const ends = lineEnds(points).map((e) => ({ ...e, kind: 'end' }));
  const x = { field: 'step', type: 'quantitative' as const, title: 'step N', axis: STEP_AXIS };
  const y = { field: 'tokens', type: 'quantitative' as const, title: 'cumulative input tokens', axis: { format: '~s' } };
  return {
    name: 'cumulative-input-tokens',
    title: 'Steps vs cumulative input tokens',
    caption: 'Input tokens consumed by a run up to each step, one line per configuration, its last step marked; dashed: the least-squares fit a·N + b·N² per scenario.',
    spec: {
      ...base('Steps vs cumulative input tokens', 'mean over runs that reached the step; dashed = fitted a·N + b·N²; dot = last step'),
      data: { values: [...measured, ...fitted, ...ends] },
      ...byScenario(['x', 'y']),
      spec: {
        width: WIDTH,
        height: PANEL_HEIGHT,
        layer: [
          {
            transform: [{ filter: "datum.kind !== 'end'" }],
            mark: { type: 'line', point: false, strokeWidth: 2 },
            encoding: {
              x,
              y,
              // Fits first, then configurations in the summary's order (steps=20 before steps=100).
              color: { field: 'series', type: 'nominal', title: null, sort: [...new Set(fitted.map((f) => f.series)), ...order] },
              strokeDash: { field: 'kind', type: 'nominal', title: null, scale: { domain: ['measured (mean over runs)', 'fit a·N + b·N²'], range: [[1, 0], [6, 4]] } },
            },
          },
          { transform: [{ filter: "datum.kind === 'end'" }], mark: { type: 'point', filled: true, size: 50, color: '#333' }, encoding: { x, y, tooltip: [{ field: 'configs', title: 'stops here' }, { field: 'step' }, { field: 'tokens', format: ',' }] } },
          ...(['left', 'right'] as const).map((side) => ({
            transform: [{ filter: `datum.kind === 'end' && datum.side === '${side}'` }],
            mark: { type: 'text' as const, align: side === 'left' ? ('right' as const) : ('left' as const), baseline: 'bottom' as const, dx: side === 'left' ? -5 : 5, dy: -5, fontSize: 11, color: '#333' },
            encoding: { x, y, text: { field: 'label' } },
          })),
        ],
      },
    },
  };
}

function perCallTokens(points: readonly StepPoint[]): ChartSpec {
  return {
    name: 'input-tokens-per-call',
    title: 'Input tokens of each call, by step',
    caption: 'Each call re-sends the whole history, so its input grows linearly with the step; the sum of a linear series is the quadratic curve above.',
    spec: {
      ...base('Input tokens of each call, by step', 'the linear growth behind the quadratic sum'),
      data: { values: points.map((p) => ({ scenario: p.scenario, config: p.config_id, step: p.step, tokens: Math.round(p.input_tokens) })) },
      ...byScenario(['x', 'y']),
      spec: {
        width: WIDTH,
        height: PANEL_HEIGHT,
        mark: { type: 'line', point: true, strokeWidth: 2 },
        encoding: {
          x: { field: 'step', type: 'quantitative', title: 'step', axis: STEP_AXIS },
          y: { field: 'tokens', type: 'quantitative', title: 'input tokens of the call (mean)', axis: { format: '~s' } },
          color: { field: 'config', type: 'nominal', title: null },
        },
      },
    },
  };
}

function costPerRun(runs: readonly RunFacts[], order: string[]): ChartSpec {
  // The box plot's five numbers per configuration, computed here rather than by Vega from every run.
  const values = groupByConfig(runs).map((g) => ({ scenario: g[0]!.scenario, config: g[0]!.config_id, runs: g.length, ...box(g.map((r) => r.cost_usd)) }));
  const y = { field: 'config', type: 'nominal' as const, title: null, sort: order };
  // The layers share one axis; the same title on each keeps Vega-Lite from joining their field names.
  const usd = (field: string) => ({ field, type: 'quantitative' as const, title: 'cost per run (USD)', axis: { format: '$.2~g' } });
  const tooltip = [{ field: 'config' }, { field: 'runs' }, ...['min', 'q1', 'median', 'q3', 'max'].map((field) => ({ field, type: 'quantitative' as const, format: '$.4~g' }))];
  return {
    name: 'cost-per-run',
    title: 'Cost per run by configuration',
    caption: 'Box: middle half of the runs, line: median, whiskers: min to max; one row per configuration.',
    spec: {
      ...base('Cost per run by configuration', 'USD per run at the recorded prices; one panel per scenario'),
      data: { values },
      ...byScenario(['x', 'y']),
      spec: {
        width: WIDTH,
        encoding: { y, tooltip },
        layer: [
          { mark: { type: 'rule' }, encoding: { x: { ...usd('min'), scale: { zero: true } }, x2: { field: 'max' } } },
          { mark: { type: 'bar', size: 18 }, encoding: { x: usd('q1'), x2: { field: 'q3' }, color: { field: 'config', type: 'nominal', legend: null, sort: order } } },
          { mark: { type: 'tick', size: 18, color: 'white', thickness: 2 }, encoding: { x: usd('median') } },
        ],
      },
    },
  };
}

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
  const values = summary.flatMap((c) => Object.entries(c.stop_reasons).map(([reason, runs]) => ({ config: c.config_id, reason, runs })));
  const present = STOP_REASONS.filter((r) => values.some((v) => v.reason === r));
  return {
    name: 'stop-reasons',
    title: 'Why runs stopped',
    caption: 'Runs per stop reason for each configuration: done = the model answered; anything else is a brake (or an error) ending the run.',
    spec: {
      ...base('Why runs stopped', 'runs per stop reason, per configuration'),
      width: WIDTH,
      data: { values },
      mark: { type: 'bar', height: { band: 0.7 } },
      encoding: {
        y: { field: 'config', type: 'nominal', title: null, sort: order },
        x: { field: 'runs', type: 'quantitative', title: 'runs', stack: 'zero' },
        color: { field: 'reason', type: 'nominal', title: 'stop reason', scale: { domain: present, range: present.map((r) => REASON_COLOUR[r]) }, legend: { orient: 'right', direction: 'vertical' } },
        tooltip: [{ field: 'config' }, { field: 'reason' }, { field: 'runs' }],
      },
    },
  };
}

function successVsCost(summary: readonly ConfigSummary[]): ChartSpec {
  const checked = summary.filter((c) => c.success_rate !== null && c.success_ci !== null);
  const values = checked.map((c) => ({ config: c.config_id, cost: c.cost_usd.mean, success: c.success_rate, lo: c.success_ci!.lo, hi: c.success_ci!.hi }));
  const head = base('Success rate vs mean cost', 'per configuration; bars: Wilson 95% interval');
  if (values.length === 0) {
    return {
      name: 'success-vs-cost',
      title: 'Success rate vs mean cost',
      caption: 'No scenario in this sweep checks its answer, so there is no success rate to weigh against cost.',
      spec: { ...head, width: WIDTH, height: 80, data: { values: [{ text: 'No scenario in this sweep checks its answer.' }] }, mark: { type: 'text', fontSize: 14 }, encoding: { text: { field: 'text' } } },
    };
  }
  const x = { field: 'cost', type: 'quantitative' as const, title: 'mean cost per run (USD)', scale: { zero: true }, axis: { format: '$.2~g' } };
  return {
    name: 'success-vs-cost',
    title: 'Success rate vs mean cost',
    caption: 'The trade-off a cost review decides on: further left is cheaper, higher is more reliable. Only scenarios that check their answer appear.',
    spec: {
      ...head,
      width: WIDTH,
      height: HEIGHT,
      data: { values },
      layer: [
        { mark: { type: 'rule', strokeWidth: 2 }, encoding: { x, y: { field: 'lo', type: 'quantitative' }, y2: { field: 'hi' }, color: { field: 'config', type: 'nominal', title: null } } },
        {
          mark: { type: 'point', filled: true, size: 90 },
          encoding: { x, y: { field: 'success', type: 'quantitative', title: 'success rate', scale: { domain: [0, 1] }, axis: { format: '.0%' } }, color: { field: 'config', type: 'nominal', title: null } },
        },
      ],
    },
  };
}

export function buildCharts(d: { summary: readonly ConfigSummary[]; points: readonly StepPoint[]; fits: readonly QuadraticFit[]; runs: readonly RunFacts[] }): ChartSpec[] {
  const order = d.summary.map((c) => c.config_id);
  return [cumulativeTokens(d.points, d.fits, order), perCallTokens(d.points), costPerRun(d.runs, order), stopReasons(d.summary, order), successVsCost(d.summary)];
}
