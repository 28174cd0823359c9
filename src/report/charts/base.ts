// What every chart of the report shares: font, sizes, the look, the panel per scenario and the
// number formats on axes (no "0k" or "0.2k": tokens print whole with thousands separators).
import type { TopLevelSpec } from 'vega-lite';

export const CHART_FONT = 'DejaVu Sans';

export interface ChartSpec {
  /** File stem under charts/ and the id in the HTML. */
  name: string;
  title: string;
  /** One sentence under the chart: how to read it. */
  caption: string;
  spec: TopLevelSpec;
}

export const WIDTH = 560;
export const HEIGHT = 300;
export const PANEL_HEIGHT = 220;
/** Steps are whole numbers: no 2.2 ticks on a short run. */
export const STEP_AXIS = { tickMinStep: 1, format: 'd' };
/** Token counts in full, `250,000`: SI prefixes print a 200-token tick as "0.2k" and zero as "0k". */
export const TOKENS_AXIS = { format: ',d' };
/** Dollars, as many digits as the ticks need: $0.00024, $0.04. */
export const USD_AXIS = { format: '$.2~g' };

export const CONFIG = {
  font: CHART_FONT,
  background: 'white',
  title: { fontSize: 15, anchor: 'start' as const, subtitleFontSize: 11, subtitleColor: '#555' },
  axis: { labelFontSize: 11, titleFontSize: 12, labelLimit: 420 },
  header: {
    labelFontSize: 13,
    labelFontWeight: 'bold' as const,
    labelAngle: 0,
    labelAlign: 'left' as const,
    labelOrient: 'top' as const,
    labelAnchor: 'start' as const,
    title: null,
  },
  legend: {
    labelFontSize: 11,
    titleFontSize: 11,
    labelLimit: 480,
    orient: 'bottom' as const,
    direction: 'vertical' as const,
  },
  view: { stroke: null },
};

/** Title and subtitle; a long subtitle goes as lines (vega sizes the chart by an estimate of the text's width). */
export const base = (title: string, subtitle: string | string[]) => ({
  $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
  title: { text: title, subtitle },
  config: CONFIG,
});

/** One panel per scenario, in the sweep's order, each with its own scale: a 900-token run and a 270k-token run do not share an axis. */
export const byScenario = (scenarios: readonly string[], independent: Array<'x' | 'y' | 'yOffset'>) => ({
  facet: { row: { field: 'scenario', type: 'nominal' as const, title: null, sort: [...scenarios] } },
  resolve: { scale: Object.fromEntries(independent.map((c) => [c, 'independent' as const])) },
});
