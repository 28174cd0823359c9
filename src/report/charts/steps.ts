// The cumulative curve in tokens (mean over runs that reached each step, with its quadratic fit), the same
// curve in dollars, and the input of each call. A lower step limit's line lies under a higher one's
// until it stops, and configurations that behave alike draw the very same line: every configuration's
// line is drawn and named in the legend, a covered one dashed over the line that covers it
// (overlap.ts), and every configuration's last step is marked and named.
import type { TopLevelSpec } from 'vega-lite';
import type { StepPoint } from '../stats/step-points.ts';
import { naturalOrder } from '../stats/aggregate.ts';
import { base, byScenario, PANEL_HEIGHT, STEP_AXIS, TOKENS_AXIS, USD_AXIS, WIDTH, type ChartSpec } from './base.ts';
import { colourBy, configLabel, type ColourScale } from './colours.ts';
import { fitFormula } from '../format/figures.ts';
import type { QuadraticFit } from '../stats/fit.ts';
import { predict } from '../stats/fit.ts';
import { usd } from '../format/numbers.ts';
import { chartSteps } from './thin.ts';
import { lineDashes, SOLID } from './overlap.ts';

type Value = (p: StepPoint) => number;
/** One layer of a layered Vega-Lite spec (vega-lite exports no name for it). */
type Layer = Extract<TopLevelSpec, { layer: unknown }>['layer'][number];
const tokensOf: Value = (p) => Math.round(p.cum_input_tokens);

/** Longer end labels (many configurations ending together) say how many; the tooltip lists them. */
const END_LABEL_CHARS = 36;

export interface LineEnd {
  scenario: string;
  step: number;
  /** The line's value at its last step (the chart's y field). */
  value: number;
  label: string;
  /** Every configuration that ends here, for the tooltip. */
  configs: string;
  /** Which side of its dot the label goes: towards the middle of the panel, so it stays inside. */
  side: 'left' | 'right';
}

/** What an end label says: the names, and what it may add of the value and the runs that got there. */
type ShowEnd = (
  names: string,
  value: number,
  end: { step: number; configIds: readonly string[]; runs: number },
) => string;

/** Where each configuration's line ends, labelled; lines that end at the same point share one label. */
export function lineEnds(
  points: readonly StepPoint[],
  value: Value = tokensOf,
  show: ShowEnd = (names) => names,
): LineEnd[] {
  const last = new Map<string, StepPoint>();
  const widest = new Map<string, number>();
  for (const p of points) {
    if ((last.get(p.config_id)?.step ?? -1) < p.step) last.set(p.config_id, p);
    widest.set(p.scenario, Math.max(widest.get(p.scenario) ?? 0, p.step));
  }
  const ends = new Map<
    string,
    { scenario: string; step: number; value: number; names: string[]; configIds: string[]; runs: number }
  >();
  for (const p of last.values()) {
    const v = value(p);
    const key = `${p.scenario}\u0000${p.step}\u0000${v}`;
    const name = configLabel(p.config_id, p.scenario);
    const end = ends.get(key);
    if (end) {
      end.names.push(name);
      end.configIds.push(p.config_id);
      end.runs += p.runs;
    } else
      ends.set(key, {
        scenario: p.scenario,
        step: p.step,
        value: v,
        names: [name],
        configIds: [p.config_id],
        runs: p.runs,
      });
  }
  return [...ends.values()]
    .sort((a, b) => a.step - b.step)
    .map(({ names, configIds, runs, ...e }) => {
      const configs = names.sort(naturalOrder).join(', ');
      const label = show(configs.length <= END_LABEL_CHARS ? configs : sharedLabel(names), e.value, {
        step: e.step,
        configIds,
        runs,
      });
      return { ...e, label, configs, side: e.step > widest.get(e.scenario)! / 2 ? 'left' : 'right' };
    });
}

/** `steps=12 · 2 configurations`: the settings every name shares (config ids are `key=value` words), and how many. */
function sharedLabel(names: readonly string[]): string {
  const [first, ...rest] = names.map((n) => n.split(' '));
  const common = first!.filter((w) => rest.every((r) => r.includes(w)));
  const count = `${names.length} configurations`;
  return common.length ? `${common.join(' ')} · ${count}` : count;
}

/**
 * The configurations whose line is drawn: per scenario, a line that another line already covers
 * (the same value at every one of its steps) is not drawn again. Longest lines first, and among
 * equals the last in natural order (the highest limit), so the drawn line is the one on top.
 */
export function drawnLines(points: readonly StepPoint[], value: Value): Set<string> {
  const lines = new Map<string, { scenario: string; at: Map<number, number> }>();
  for (const p of points) {
    let l = lines.get(p.config_id);
    if (!l) lines.set(p.config_id, (l = { scenario: p.scenario, at: new Map() }));
    l.at.set(p.step, value(p));
  }
  const same = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));
  const ordered = [...lines].sort(([a, x], [b, y]) => y.at.size - x.at.size || naturalOrder(b, a));
  const kept: Array<[string, { scenario: string; at: Map<number, number> }]> = [];
  for (const [id, line] of ordered) {
    const covered = kept.some(
      ([, k]) =>
        k.scenario === line.scenario && [...line.at].every(([step, v]) => k.at.has(step) && same(k.at.get(step)!, v)),
    );
    if (!covered) kept.push([id, line]);
  }
  return new Set(kept.map(([id]) => id));
}

interface LineChart {
  name: string;
  title: string;
  subtitle: string | string[];
  caption: string;
  yTitle: string;
  yAxis: Record<string, unknown>;
  value: Value;
  show?: ShowEnd;
  /** Extra layers drawn under the lines' end marks (the fit). */
  layers?: Layer[];
  /** Rows for those layers. */
  rows?: object[];
  point?: boolean;
}

function lineChart(
  points: readonly StepPoint[],
  scenarios: readonly string[],
  colours: ColourScale,
  c: LineChart,
): ChartSpec {
  const drawn = drawnLines(points, c.value);
  const label = (p: StepPoint) => configLabel(p.config_id, p.scenario);
  const dashes = lineDashes(points.map(label), new Set(points.filter((p) => !drawn.has(p.config_id)).map(label)));
  const rank = new Map(dashes.order.map((l, i) => [l, i]));
  // Rows bottom line first: vega draws the lines of one mark in the order their rows come.
  const lines = points
    .map((p) => ({ scenario: p.scenario, config: label(p), kind: 'measured', step: p.step, value: c.value(p) }))
    .sort((a, b) => rank.get(a.config)! - rank.get(b.config)!);
  const ends = lineEnds(points, c.value, c.show).map((e) => ({ ...e, kind: 'end' }));
  const named = lines.map((l) => l.config);
  // The legend draws each line's stroke and dashes (not a point, whose outline would be dashed).
  const colour = colourBy('config', colours, named, { symbolType: 'stroke', symbolStrokeWidth: 2 });
  const strokeDash = {
    field: 'config',
    type: 'nominal' as const,
    title: null,
    scale: { domain: colour.scale.domain, range: colour.scale.domain.map((l) => dashes.dash.get(l) ?? [1, 0]) },
    legend: colour.legend,
  };
  const x = { field: 'step', type: 'quantitative' as const, title: 'step N', axis: STEP_AXIS };
  const y = { field: 'value', type: 'quantitative' as const, title: c.yTitle, axis: c.yAxis };
  return {
    name: c.name,
    title: c.title,
    caption: c.caption,
    spec: {
      ...base(
        c.title,
        dashes.order.some((l) => dashes.dash.get(l) !== SOLID) ? [...[c.subtitle].flat(), COVERED] : c.subtitle,
      ),
      data: { values: [...lines, ...(c.rows ?? []), ...ends] },
      ...byScenario(scenarios, ['x', 'y']),
      spec: {
        width: WIDTH,
        height: PANEL_HEIGHT,
        layer: [
          ...(c.layers ?? []),
          {
            transform: [{ filter: "datum.kind === 'measured'" }],
            mark: { type: 'line', point: c.point ?? false, strokeWidth: 2 },
            encoding: { x, y, color: colour, strokeDash },
          },
          {
            transform: [{ filter: "datum.kind === 'end'" }],
            mark: { type: 'point', filled: true, size: 50, color: '#333' },
            encoding: {
              x,
              y,
              tooltip: [
                { field: 'configs', title: 'stops here' },
                { field: 'step' },
                { field: 'value', title: c.yTitle, format: c.yAxis.format as string },
              ],
            },
          },
          ...(['left', 'right'] as const).map((side) => ({
            transform: [{ filter: `datum.kind === 'end' && datum.side === '${side}'` }],
            mark: {
              type: 'text' as const,
              align: side === 'left' ? ('right' as const) : ('left' as const),
              baseline: 'bottom' as const,
              dx: side === 'left' ? -5 : 5,
              dy: -5,
              fontSize: 11,
              color: '#333',
            },
            encoding: { x, y, text: { field: 'label' } },
          })),
        ],
      },
    },
  };
}

const FIT = 'fit a·N + b·N²';
/** What a dashed coloured line means: said under the title of a chart that draws one. */
const COVERED = 'dashed colours: configurations that draw the same line, each showing in turn';

export function cumulativeTokensChart(
  points: readonly StepPoint[],
  fits: readonly QuadraticFit[],
  scenarios: readonly string[],
  colours: ColourScale,
): ChartSpec {
  const fitted = fits.flatMap((f) =>
    chartSteps(f.max_step).map((step) => ({
      scenario: f.scenario,
      kind: FIT,
      step,
      value: Math.round(predict(f, step)),
    })),
  );
  const formulas = fits.map((f) => ({ scenario: f.scenario, kind: 'formula', text: `dotted: fit ${fitFormula(f)}` }));
  return lineChart(points, scenarios, colours, {
    name: 'cumulative-input-tokens',
    title: 'Steps vs cumulative input tokens',
    subtitle: [
      'mean over runs that reached the step; grey dotted line = fitted a·N + b·N²;',
      'dot = where a configuration stops',
    ],
    caption:
      'Input tokens consumed by a run up to each step, one line per configuration, each configuration’s last step marked and named; dotted grey: the least-squares fit a·N + b·N² per scenario.',
    yTitle: 'cumulative input tokens',
    yAxis: TOKENS_AXIS,
    value: tokensOf,
    rows: [...fitted, ...formulas],
    layers: [
      {
        transform: [{ filter: `datum.kind === '${FIT}'` }],
        mark: { type: 'line', strokeWidth: 1.5, color: '#555', strokeDash: [1.5, 3] },
        encoding: { x: { field: 'step', type: 'quantitative' }, y: { field: 'value', type: 'quantitative' } },
      },
      {
        transform: [{ filter: "datum.kind === 'formula'" }],
        mark: { type: 'text', align: 'left', baseline: 'top', x: 6, y: 4, fontSize: 11, color: '#555' },
        encoding: { text: { field: 'text' } },
      },
    ],
  });
}

/**
 * `runsOf`: each configuration's runs. A line's last step is reached only by the longest runs, so its end value
 * is their mean, not the table's cost per run (the mean over all runs): the label says so when they differ.
 */
export function cumulativeCostChart(
  points: readonly StepPoint[],
  scenarios: readonly string[],
  colours: ColourScale,
  runsOf: ReadonlyMap<string, number>,
  prices: string,
): ChartSpec {
  return lineChart(points, scenarios, colours, {
    name: 'cumulative-cost',
    title: 'Steps vs cumulative cost',
    subtitle: [
      `USD per run up to each step ${prices}, mean over runs that reached the step;`,
      'dot = where a configuration stops',
    ],
    caption:
      'The cumulative curve in dollars: what a run has cost by each step, the mean over the runs that got that far; each configuration’s end is marked with its name and that mean, and with how many of its runs got there when not all did (the tables’ cost per run is the mean over all runs).',
    yTitle: 'cumulative cost per run (USD)',
    yAxis: USD_AXIS,
    value: (p) => p.cum_cost_usd,
    show: (names, v, end) => {
      const all = end.configIds.reduce((n, id) => n + (runsOf.get(id) ?? 0), 0);
      return `${names} · ${usd(v)}${end.runs < all ? ` (${end.runs} of ${all} runs reach step ${end.step})` : ''}`;
    },
  });
}

export function perCallTokensChart(
  points: readonly StepPoint[],
  scenarios: readonly string[],
  colours: ColourScale,
): ChartSpec {
  return lineChart(points, scenarios, colours, {
    name: 'input-tokens-per-call',
    title: 'Input tokens of each call, by step',
    subtitle: 'the linear growth behind the quadratic sum; dot = where a configuration stops',
    caption:
      'Each call re-sends the whole history, so its input grows linearly with the step; the sum of a linear series is the quadratic curve above.',
    yTitle: 'input tokens of the call (mean)',
    yAxis: TOKENS_AXIS,
    value: (p) => Math.round(p.input_tokens),
    point: true,
  });
}
