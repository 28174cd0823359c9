// Vega-Lite spec → SVG (vega View, renderer 'none', toSVG) → PNG (resvg with the font shipped in
// dejavu-fonts-ttf, so text renders the same on every machine whatever fonts it has).
import { createRequire } from 'node:module';
import path from 'node:path';
import { Resvg } from '@resvg/resvg-js';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { CHART_FONT } from './charts.ts';

const require = createRequire(import.meta.url);
const fontDir = path.join(path.dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
export const FONT_FILES = [path.join(fontDir, 'DejaVuSans.ttf'), path.join(fontDir, 'DejaVuSans-Bold.ttf')];

// vega-lite warns about facet scale unions our data makes harmless; errors still throw.
const quiet = vega.logger(vega.Error);

export async function toSvg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec, { logger: quiet }).spec), { renderer: 'none', logLevel: vega.Error });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

export function svgToPng(svg: string, scale = 2): Buffer {
  const resvg = new Resvg(svg, {
    background: 'white',
    fitTo: { mode: 'zoom', value: scale },
    font: { fontFiles: FONT_FILES, loadSystemFonts: false, defaultFontFamily: CHART_FONT },
  });
  return resvg.render().asPng();
}
