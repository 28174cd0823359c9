// The charts of what a configuration costs: the headline (mean cost per run, and per successful
// task where the scenario checks its answer, with 95% intervals and the saving against the highest
// step limit written on each bar), the spread of cost per run, and success against cost per success.
import type { RunFacts } from '../../contracts/records.ts';
import { groupByConfig, type ConfigSummary } from '../stats/aggregate.ts';
import { base, byScenario, HEIGHT, USD_AXIS, WIDTH, type ChartSpec } from './base.ts';
import { colourBy, configLabel, type ColourScale } from './colours.ts';
import { stepLimitFamilies } from '../stats/step-limits.ts';
import { usd } from '../format/numbers.ts';
import { UNSEEN_MARK } from '../format/figures.ts';
import { meanInterval } from '../stats/intervals.ts';
import { box } from '../stats/descriptive.ts';

const PER_RUN = 'per run';
const PER_SUCCESS = 'per successful task';
/** Approximate width of one character of an 11-px label, to leave each panel room for its labels. */
const LABEL_CHAR_PX = 6.6;

interface CostBar {
  scenario: string;
  config: string;
  measure: typeof PER_RUN | typeof PER_SUCCESS;
  cost: number;
  lo: number;
  hi: number;
  /** What the bar says at its end: the cost, and its change against the highest step limit. */
  label: string;
  /** Where the label starts: past the bar and its interval. */
  label_at: number;
}

const change = (x: number, top: number) => {
  const c = x / top - 1;
  const pc = Math.round(Math.abs(c) * 100);
  return pc === 0 ? '±0%' : `${c < 0 ? '−' : '+'}${pc}%`;
};

/** Per configuration: mean cost per run and, where success is checked, cost per successful task, each with its interval and saving. */
export function costBars(runs: readonly RunFacts[], summary: readonly ConfigSummary[]): CostBar[] {
  // Each configuration against the highest step limit of its family (the same settings but MAX_STEPS).
  const topOf = new Map<string, ConfigSummary>();
  for (const family of stepLimitFamilies(summary))
    for (const c of family) topOf.set(c.config_id, family[family.length - 1]!);
  const values = new Map<
    string,
    {
      run: { mean: number; lo: number; hi: number };
      success: { mean: number; lo: number; hi: number; unseenHi?: number } | null;
      checked: boolean;
    }
  >();
  const perSuccess = new Map(summary.map((c) => [c.config_id, c.cost_per_success]));
  for (const g of groupByConfig(runs)) {
    const run = meanInterval(g.map((r) => r.cost_usd));
    // The summary's cost per successful task (one definition for every table, chart and CSV); no bar when none succeeded.
    const win = perSuccess.get(g[0]!.config_id) ?? null;
    values.set(g[0]!.config_id, {
      run: { mean: run.mean, lo: run.ci?.lo ?? run.mean, hi: run.ci?.hi ?? run.mean },
      // With no failure seen, the line ends where the runs seen put it and the label gives the bound the budget adds
      // (a line to it would flatten every other bar of the panel).
      success:
        win && Number.isFinite(win.value)
          ? {
              mean: win.value,
              lo: win.ci?.lo ?? win.value,
              hi: win.unseen_failures?.adds_usd ? win.unseen_failures.seen_hi : (win.ci?.hi ?? win.value),
              ...(win.unseen_failures?.adds_usd && win.ci ? { unseenHi: win.ci.hi } : {}),
            }
          : null,
      checked: win !== null,
    });
  }
  const bars: CostBar[] = [];
  for (const c of summary) {
    const v = values.get(c.config_id);
    if (!v) continue;
    const top = topOf.get(c.config_id);
    // Where success is checked each configuration has two bars: each label says which it is.
    const { checked } = v;
    const topValues = top && values.get(top.config_id);
    const add = (
      measure: CostBar['measure'],
      m: { mean: number; lo: number; hi: number; unseenHi?: number },
      ref: { mean: number } | null | undefined,
    ) => {
      const against =
        top === c
          ? `highest limit`
          : ref && ref.mean > 0
            ? `${change(m.mean, ref.mean)} vs ${configLabel(top!.config_id, c.scenario)}`
            : '';
      const what = `${usd(m.mean)}${checked ? (measure === PER_RUN ? ' per run' : ' per success') : ''}`;
      const none = checked && !v.success ? ' · no run succeeded' : '';
      const unseen = m.unseenHi === undefined ? '' : ` · ${UNSEEN_MARK} no failure seen: up to ${usd(m.unseenHi)}`;
      const label = `${what}${against ? ` · ${against}` : ''}${none}${unseen}`;
      // An unbounded end (no success in some resamples of a handful of runs) draws no line there: a scale to ∞ draws nothing.
      const hi = Number.isFinite(m.hi) ? m.hi : m.mean;
      bars.push({
        scenario: c.scenario,
        config: configLabel(c.config_id, c.scenario),
        measure,
        cost: m.mean,
        lo: Math.max(0, m.lo),
        hi,
        label,
        label_at: Math.max(m.mean, hi),
      });
    };
    add(PER_RUN, v.run, topValues?.run);
    if (v.success) add(PER_SUCCESS, v.success, topValues?.success);
  }
  return bars;
}

/** The headline: what each configuration costs, and what it saves against the highest limit. */
export function meanCostChart(
  runs: readonly RunFacts[],
  summary: readonly ConfigSummary[],
  scenarios: readonly string[],
  colours: ColourScale,
  prices = 'at the recorded prices',
): ChartSpec {
  const bars = costBars(runs, summary);
  const checked = bars.some((b) => b.measure === PER_SUCCESS);
  const families = stepLimitFamilies(summary).length > 0;
  // An invisible mark per panel where its x axis must reach, so the longest label ends inside the panel.
  const reach = scenarios.map((s) => {
    const mine = bars.filter((b) => b.scenario === s);
    return {
      scenario: s,
      kind: 'reach',
      cost: Math.max(
        0,
        ...mine.map((b) => (b.label_at * WIDTH) / Math.max(WIDTH / 3, WIDTH - 10 - b.label.length * LABEL_CHAR_PX)),
      ),
    };
  });
  const x = {
    field: 'cost',
    type: 'quantitative' as const,
    title: 'mean cost (USD)',
    scale: { zero: true, nice: false },
    axis: USD_AXIS,
  };
  const y = { field: 'config', type: 'nominal' as const, title: null, sort: colours.domain };
  const offset = { yOffset: { field: 'measure', type: 'nominal' as const, sort: [PER_RUN, PER_SUCCESS] } };
  const bar = { filter: "datum.kind !== 'reach'" };
  // No legend: an opacity legend's swatches are black and grey beside bars in their configuration's
  // colours; the subtitle says which bar is pale, and each bar's label names its measure.
  return {
    name: 'mean-cost',
    title: 'What each configuration costs',
    caption: `Mean cost per run${checked ? ' and per successful task (total cost ÷ runs that passed the check)' : ''} per configuration, with 95% intervals (Student t${checked ? '; for the ratio a studentized bootstrap over runs; where no run failed the line ends at the runs seen and the label gives the upper end with what unseen failures could add within the budget' : ''}); each bar says its mean${families ? ' and its change against the highest step limit of the same settings' : ''}.`,
    spec: {
      ...base('What each configuration costs', [
        `mean USD ${checked ? 'per run (solid bar) and per successful task (pale bar)' : 'per run'} ${prices}, line: 95% interval${families ? ';' : ''}`,
        ...(families ? ['each label: the mean and its change against the highest step limit'] : []),
      ]),
      data: { values: [...bars.map((b) => ({ ...b, kind: 'bar' })), ...reach] },
      ...byScenario(scenarios, ['x', 'y', 'yOffset']),
      spec: {
        width: WIDTH,
        // A fixed height (a step-sized one does not compile inside a facet): room for the panel with most configurations.
        height:
          Math.max(...scenarios.map((s) => new Set(bars.filter((b) => b.scenario === s).map((b) => b.config)).size)) *
          (checked ? 34 : 22),
        layer: [
          {
            transform: [bar],
            mark: { type: 'bar' },
            encoding: {
              y,
              x,
              ...offset,
              color: { ...colourBy('config', colours, []), legend: null },
              opacity: {
                field: 'measure',
                type: 'nominal',
                title: null,
                scale: { domain: [PER_RUN, PER_SUCCESS], range: [1, 0.45] },
                legend: null,
              },
              tooltip: [
                { field: 'config' },
                { field: 'measure' },
                { field: 'cost', format: '$.4~g' },
                { field: 'lo', format: '$.4~g', title: '95% low' },
                { field: 'hi', format: '$.4~g', title: '95% high' },
              ],
            },
          },
          {
            transform: [bar],
            mark: { type: 'rule', color: '#222', strokeWidth: 1.5 },
            encoding: { y, ...offset, x: { field: 'lo', type: 'quantitative' }, x2: { field: 'hi' } },
          },
          {
            transform: [bar],
            mark: { type: 'text', align: 'left', baseline: 'middle', dx: 5, fontSize: 11, color: '#222' },
            encoding: { y, ...offset, x: { field: 'label_at', type: 'quantitative' }, text: { field: 'label' } },
          },
          { transform: [{ filter: "datum.kind === 'reach'" }], mark: { type: 'point', opacity: 0 }, encoding: { x } },
        ],
      },
    },
  };
}

export function costPerRunChart(
  runs: readonly RunFacts[],
  scenarios: readonly string[],
  colours: ColourScale,
  prices = 'at the recorded prices',
): ChartSpec {
  // The box plot's five numbers per configuration, computed here rather than by Vega from every run.
  const values = groupByConfig(runs).map((g) => ({
    scenario: g[0]!.scenario,
    config: configLabel(g[0]!.config_id, g[0]!.scenario),
    runs: g.length,
    ...box(g.map((r) => r.cost_usd)),
  }));
  const y = { field: 'config', type: 'nominal' as const, title: null, sort: colours.domain };
  // The layers share one axis; the same title on each keeps Vega-Lite from joining their field names.
  const usdAxis = (field: string) => ({
    field,
    type: 'quantitative' as const,
    title: 'cost per run (USD)',
    axis: USD_AXIS,
  });
  const tooltip = [
    { field: 'config' },
    { field: 'runs' },
    ...['min', 'q1', 'median', 'q3', 'max'].map((field) => ({ field, type: 'quantitative' as const, format: '$.4~g' })),
  ];
  return {
    name: 'cost-per-run',
    title: 'Cost per run by configuration',
    caption:
      'How the runs of each configuration spread: box = middle half of the runs, dot = median, whiskers = min to max. Where runs cost about the same the box is a thin line at its dot; the means are in the first chart.',
    spec: {
      ...base('Spread of cost per run', `USD per run ${prices}; one panel per scenario`),
      data: { values },
      ...byScenario(scenarios, ['x', 'y']),
      spec: {
        width: WIDTH,
        encoding: { y, tooltip },
        layer: [
          {
            mark: { type: 'rule' },
            encoding: { x: { ...usdAxis('min'), scale: { zero: true } }, x2: { field: 'max' } },
          },
          {
            mark: { type: 'bar', size: 18, stroke: '#333', strokeWidth: 0.5 },
            encoding: {
              x: usdAxis('q1'),
              x2: { field: 'q3' },
              color: { ...colourBy('config', colours, []), legend: null },
            },
          },
          { mark: { type: 'tick', size: 18, color: 'white', thickness: 2 }, encoding: { x: usdAxis('median') } },
          // Where every run cost about the same the box is a hairline: the median's dot keeps it in sight, in its colour.
          {
            mark: { type: 'point', filled: true, size: 70, opacity: 1, stroke: '#333', strokeWidth: 0.5 },
            encoding: { x: usdAxis('median'), color: { ...colourBy('config', colours, []), legend: null } },
          },
        ],
      },
    },
  };
}

/** Points that coincide are drawn one inside the other: each inner one this much smaller in area. */
const RING = 170;
const DOT = 90;

/** A scale around the data, not from zero: one configuration is not a dot in the corner of an empty frame. */
const around = (lo: number, hi: number, pad = 0.12, floor = -Infinity, ceil = Infinity) => {
  const span = hi - lo || Math.abs(hi) || 1;
  return [Math.max(floor, lo - span * pad), Math.min(ceil, hi + span * pad)];
};

/** Success rate against cost per successful task; null when no scenario checks its answer (nothing to weigh). */
export function successVsCostChart(
  runs: readonly RunFacts[],
  summary: readonly ConfigSummary[],
  colours: ColourScale,
): ChartSpec | null {
  const perSuccess = new Map(
    costBars(runs, summary)
      .filter((b) => b.measure === PER_SUCCESS)
      .map((b) => [`${b.scenario}\u0000${b.config}`, b]),
  );
  // Configurations at the very same point each keep a mark: drawn as rings, the lowest in natural order
  // widest and first, so every colour shows; the point's label names them all.
  const groups = new Map<
    string,
    Array<{
      scenario: string;
      config: string;
      cost: number;
      cost_lo: number;
      cost_hi: number;
      success: number;
      lo: number;
      hi: number;
    }>
  >();
  for (const c of summary) {
    const config = configLabel(c.config_id, c.scenario);
    const b = perSuccess.get(`${c.scenario}\u0000${config}`);
    // No success at all: no cost per success to place it at.
    if (!b || c.success_rate === null || !c.success_ci) continue;
    const key = `${c.scenario}\u0000${b.cost}\u0000${c.success_rate}`;
    groups.set(key, [
      ...(groups.get(key) ?? []),
      {
        scenario: c.scenario,
        config,
        cost: b.cost,
        cost_lo: b.lo,
        cost_hi: b.hi,
        success: c.success_rate,
        lo: c.success_ci.lo,
        hi: c.success_ci.hi,
      },
    ]);
  }
  const all = [...groups.values()].flat();
  if (all.length === 0) return null;
  const mid = new Map<string, number>();
  for (const p of all)
    mid.set(
      p.scenario,
      (Math.min(...all.filter((q) => q.scenario === p.scenario).map((q) => q.cost_lo)) +
        Math.max(...all.filter((q) => q.scenario === p.scenario).map((q) => q.cost_hi))) /
        2,
    );
  // Each label on the side of its point towards the middle of the panel, so it stays inside; one label per point.
  const values = [...groups.values()].flatMap((g) =>
    g.map((p, i) => ({
      ...p,
      size: DOT + RING * (g.length - 1 - i),
      label: i === g.length - 1 ? g.map((q) => q.config).join(', ') : '',
      side: p.cost > mid.get(p.scenario)! ? 'left' : 'right',
    })),
  );
  const scenarios = [...new Set(values.map((v) => v.scenario))];
  const x = {
    field: 'cost',
    type: 'quantitative' as const,
    title: 'cost per successful task (USD)',
    scale: { zero: false, nice: false },
    axis: USD_AXIS,
  };
  const y = {
    field: 'success',
    type: 'quantitative' as const,
    title: 'success rate',
    scale: {
      zero: false,
      nice: false,
      domain: around(Math.min(...values.map((v) => v.lo)), Math.max(...values.map((v) => v.hi)), 0.12, 0, 1),
    },
    axis: { format: '.0%' },
  };
  const color = colourBy(
    'config',
    colours,
    values.map((v) => v.config),
  );
  const point = { filter: "datum.kind !== 'reach'" };
  // Every panel's x axis spans its points' intervals with a margin: an invisible mark at each end.
  const reach = scenarios.flatMap((s) => {
    const mine = values.filter((v) => v.scenario === s);
    return around(Math.min(...mine.map((v) => v.cost_lo)), Math.max(...mine.map((v) => v.cost_hi)), 0.12, 0).map(
      (cost) => ({ scenario: s, kind: 'reach', cost }),
    );
  });
  return {
    name: 'success-vs-cost',
    title: 'Success rate vs cost per successful task',
    caption:
      'The trade-off a cost review decides on: further left is cheaper per task actually done, higher is more reliable; the axes span the points and their intervals, not from zero. Lines: 95% intervals (Wilson for the rate; for the cost a studentized bootstrap over runs, ending at the runs seen where none failed: the table gives the upper end with what unseen failures could add). Configurations at the same point are drawn as rings, one inside the other, and named together. Only scenarios that check their answer appear.',
    spec: {
      ...base(
        'Success rate vs cost per successful task',
        'per configuration; lines: 95% intervals; rings: configurations at the same point',
      ),
      data: { values: [...values, ...reach] },
      ...byScenario(scenarios, ['x']),
      spec: {
        width: WIDTH,
        height: HEIGHT,
        layer: [
          {
            transform: [point],
            mark: { type: 'rule', strokeWidth: 2 },
            encoding: { x, y: { field: 'lo', type: 'quantitative' }, y2: { field: 'hi' }, color },
          },
          {
            transform: [point],
            mark: { type: 'rule', strokeWidth: 2 },
            encoding: { x: { field: 'cost_lo', type: 'quantitative' }, x2: { field: 'cost_hi' }, y, color },
          },
          {
            transform: [point],
            mark: { type: 'point', filled: true, opacity: 1, stroke: 'white', strokeWidth: 1 },
            encoding: {
              x,
              y,
              color,
              size: { field: 'size', type: 'quantitative', scale: null, legend: null },
              order: { field: 'size', sort: 'descending' },
              tooltip: [
                { field: 'config', title: 'configuration' },
                { field: 'success', format: '.0%' },
                { field: 'cost', title: 'cost per success', format: '$.4~g' },
              ],
            },
          },
          { transform: [{ filter: "datum.kind === 'reach'" }], mark: { type: 'point', opacity: 0 }, encoding: { x } },
          ...(['left', 'right'] as const).map((side) => ({
            transform: [{ filter: `datum.side === '${side}' && datum.label !== ''` }],
            mark: {
              type: 'text' as const,
              align: side === 'left' ? ('right' as const) : ('left' as const),
              baseline: 'top' as const,
              dx: side === 'left' ? -6 : 6,
              dy: 6,
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
