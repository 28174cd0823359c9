// Vega-Lite specs for the reflection and context charts. Pure: aggregated rows in, spec out.
//   reflection-cost — tokens and cost per run for each reflection mode, next to pass^k by k;
//   context-cumulative-input — cumulative input tokens by step, one line per configuration (a covered
//   one dashed over the line it follows), with the fitted a·N + b·N² (thin dotted) and its a and b in the legend.
import { naturalOrder } from '../stats/aggregate.ts';
import type { StepPoints } from '../stats/step-points.ts';
import { CHART_FONT, STEP_AXIS, type ChartSpec } from './base.ts';
import type { ContextRow } from '../stats/context.ts';
import { predict } from '../stats/fit.ts';
import type { StabilityRow } from '../stats/reflection.ts';
import { colourBy, type ColourScale } from './colours.ts';
import { drawnLines } from './steps.ts';
import { lineDashes, SOLID } from './overlap.ts';

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';
const config = {
  font: CHART_FONT,
  background: 'white',
  title: { fontSize: 15, anchor: 'start' as const },
  legend: { orient: 'bottom' as const, direction: 'vertical' as const, labelLimit: 520 },
  view: { stroke: null },
};
const coef = (x: number) => (Math.abs(x) >= 100 ? Math.round(x).toLocaleString('en-US') : x.toFixed(1));

export function reflectionChart(rows: readonly StabilityRow[], colours: ColourScale): ChartSpec {
  const labelOf = (r: StabilityRow) => colours.labels.get(r.config_id) ?? r.config_id;
  const bars = rows.map((r) => ({
    id: r.config_id,
    config: labelOf(r),
    reflection: r.reflection,
    tokens: Math.round(r.input_tokens_mean + r.output_tokens_mean),
    label: `$${r.cost_usd_mean.toFixed(4)} · ${r.successes ?? '-'}/${r.runs} right`,
  }));
  // Modes that succeed equally draw the same pass^k curve: each but the highest (natural order) dashed over it (overlap.ts).
  const same = new Map<string, string[]>();
  for (const r of rows)
    same.set(JSON.stringify(r.pass_hat_k), [...(same.get(JSON.stringify(r.pass_hat_k)) ?? []), labelOf(r)]);
  const covered = new Set([...same.values()].flatMap((ls) => ls.sort(naturalOrder).slice(0, -1)));
  const dashes = lineDashes(rows.map(labelOf), covered);
  const rank = new Map(dashes.order.map((l, i) => [l, i]));
  const curve = rows
    // `line` repeats the label for the dashes alone: on `config` they would reach the legend the bars share, and dash its dots.
    .flatMap((r) =>
      r.pass_hat_k.map((p, i) => ({
        id: r.config_id,
        config: labelOf(r),
        line: labelOf(r),
        reflection: r.reflection,
        k: i + 1,
        pass: p,
      })),
    )
    .sort((a, b) => rank.get(a.config)! - rank.get(b.config)!);
  const color = colourBy(
    'config',
    colours,
    bars.map((b) => b.config),
  );
  const strokeDash = {
    field: 'line',
    type: 'nominal' as const,
    title: null,
    scale: { domain: color.scale.domain, range: color.scale.domain.map((l) => dashes.dash.get(l) ?? SOLID) },
    legend: null,
  };
  return {
    name: 'reflection-cost',
    title: 'What reflection costs and what it buys',
    caption:
      'Left: tokens per run (mean) with the cost and the runs answered right. Right: pass^k — the chance that k runs drawn from the repeats all succeed — for each reflection mode (where modes succeed equally their curves coincide: each but one dashed over it, every colour showing in turn).',
    spec: {
      $schema: SCHEMA,
      title: {
        text: 'What reflection costs and what it buys',
        subtitle: 'tokens and cost per run vs success and pass^k across repeats',
      },
      config,
      hconcat: [
        {
          width: 300,
          height: 220,
          data: { values: bars },
          layer: [
            {
              mark: 'bar',
              encoding: {
                y: { field: 'id', type: 'nominal', title: null, sort: null, axis: { labels: false, ticks: false } },
                x: {
                  field: 'tokens',
                  type: 'quantitative',
                  title: 'tokens per run (input + output)',
                  axis: { format: ',d' },
                },
                color,
              },
            },
            {
              mark: { type: 'text', align: 'left', dx: 4 },
              encoding: {
                y: { field: 'id', type: 'nominal', sort: null },
                x: { field: 'tokens', type: 'quantitative' },
                text: { field: 'label' },
              },
            },
          ],
        },
        {
          width: 300,
          height: 220,
          data: { values: curve },
          mark: { type: 'line', point: true },
          encoding: {
            x: { field: 'k', type: 'quantitative', title: 'k (runs that must all succeed)', axis: STEP_AXIS },
            y: { field: 'pass', type: 'quantitative', title: 'pass^k', scale: { domain: [0, 1] } },
            color,
            strokeDash,
            detail: { field: 'id', type: 'nominal' },
          },
        },
      ],
    },
  };
}

export function contextChart(rows: readonly ContextRow[], points: StepPoints, colours: ColourScale): ChartSpec {
  // A curve another one covers (reflection does not change what a context strategy sends) is dashed over it (overlap.ts).
  const curves = points.configs
    .filter((c) => rows.some((r) => r.config_id === c.config_id))
    .flatMap((c) => points.of(c));
  const shown = drawnLines(curves, (p) => Math.round(p.cum_input_tokens));
  const single = new Set(rows.map((r) => r.scenario)).size === 1;
  const labelOf = (id: string) => colours.labels.get(id) ?? id;
  const dashes = lineDashes(
    curves.map((p) => labelOf(p.config_id)),
    new Set(curves.filter((p) => !shown.has(p.config_id)).map((p) => labelOf(p.config_id))),
  );
  const rank = new Map(dashes.order.map((l, i) => [l, i]));
  // The legend names each strategy with its fit; across scenarios one label has several fits, which context.csv lists.
  const withFit = single
    ? Object.fromEntries(
        rows
          .filter((r) => r.fit)
          .map((r) => [labelOf(r.config_id), `${labelOf(r.config_id)}: a = ${coef(r.fit!.a)}, b = ${coef(r.fit!.b)}`]),
      )
    : {};
  // Rows bottom line first: vega draws the lines of one mark in the order their rows come.
  const measured = curves
    .map((p) => ({
      id: p.config_id,
      series: labelOf(p.config_id),
      kind: 'measured',
      step: p.step,
      tokens: Math.round(p.cum_input_tokens),
    }))
    .sort((a, b) => rank.get(a.series)! - rank.get(b.series)!);
  const fitted = rows.flatMap((r) => {
    const fit = r.fit;
    if (!fit || !shown.has(r.config_id)) return [];
    const steps = curves.filter((p) => p.config_id === r.config_id).map((p) => p.step);
    return steps.map((n) => ({
      id: r.config_id,
      series: labelOf(r.config_id),
      kind: 'fit',
      step: n,
      tokens: Math.round(predict(fit, n)),
    }));
  });
  const legend = {
    title: single ? rows[0]!.scenario : null,
    labelLimit: 600,
    labelExpr: `${JSON.stringify(withFit)}[datum.label] || datum.label`,
    symbolType: 'stroke',
    symbolStrokeWidth: 2,
  };
  const color = colourBy(
    'series',
    colours,
    measured.map((m) => m.series),
    legend,
  );
  const strokeDash = {
    field: 'series',
    type: 'nominal' as const,
    title: legend.title,
    scale: { domain: color.scale.domain, range: color.scale.domain.map((l) => dashes.dash.get(l) ?? SOLID) },
    legend: color.legend,
  };
  const x = { field: 'step', type: 'quantitative' as const, title: 'step N', axis: STEP_AXIS };
  const y = {
    field: 'tokens',
    type: 'quantitative' as const,
    title: 'cumulative input tokens',
    axis: { format: ',d' },
  };
  const covered = dashes.order.some((l) => dashes.dash.get(l) !== SOLID);
  return {
    name: 'context-cumulative-input',
    title: 'Cumulative input tokens per context strategy',
    caption: `Input tokens a run has consumed by each step, one line per configuration${covered ? ' (a configuration with the very same curve as another dashed over it, each showing in turn)' : ''}; thin dotted: the fit a·N + b·N². Full context is quadratic; a window or summaries flatten it toward linear.`,
    spec: {
      $schema: SCHEMA,
      title: {
        text: 'Cumulative input tokens per context strategy',
        subtitle: 'mean over runs; thin dotted = fitted a·N + b·N² (a and b in the legend)',
      },
      config,
      width: 600,
      height: 320,
      data: { values: [...measured, ...fitted] },
      layer: [
        {
          transform: [{ filter: "datum.kind === 'fit'" }],
          mark: { type: 'line', strokeWidth: 1.5, strokeDash: [1.5, 3] },
          encoding: { x, y, color, detail: { field: 'id', type: 'nominal' } },
        },
        {
          transform: [{ filter: "datum.kind === 'measured'" }],
          mark: { type: 'line', strokeWidth: 2 },
          encoding: { x, y, color, strokeDash, detail: { field: 'id', type: 'nominal' } },
        },
      ],
    },
  };
}
