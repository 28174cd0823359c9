// Vega-Lite spec → SVG (vega View, renderer 'none', toSVG) → PNG (resvg with the font shipped in
// dejavu-fonts-ttf, so text renders the same on every machine whatever fonts it has).
// The renderers load on the first chart: they take ~55 MB, which a sweep holds only once its runs
// are done (worker threads need that room while they run; `bench --help` never needs it).
import { createRequire } from 'node:module';
import path from 'node:path';
import type { TopLevelSpec } from 'vega-lite';
import { CHART_FONT } from '../charts/base.ts';

const require = createRequire(import.meta.url);
const fontDir = path.join(path.dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
export const FONT_FILES = [path.join(fontDir, 'DejaVuSans.ttf'), path.join(fontDir, 'DejaVuSans-Bold.ttf')];

async function loadRenderers() {
  const [vega, { compile }, { Resvg }] = await Promise.all([
    import('vega'),
    import('vega-lite'),
    import('@resvg/resvg-js'),
  ]);
  // vega-lite warns about facet scale unions our data makes harmless; errors still throw.
  return { vega, compile, Resvg, quiet: vega.logger(vega.Error) };
}
let renderers: ReturnType<typeof loadRenderers> | undefined;

export async function toSvg(spec: TopLevelSpec): Promise<string> {
  const { vega, compile, quiet } = await (renderers ??= loadRenderers());
  const view = new vega.View(vega.parse(compile(spec, { logger: quiet }).spec), {
    renderer: 'none',
    logLevel: vega.Error,
  });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

export async function svgToPng(svg: string, scale = 2): Promise<Buffer> {
  const { Resvg } = await (renderers ??= loadRenderers());
  const resvg = new Resvg(svg, {
    background: 'white',
    fitTo: { mode: 'zoom', value: scale },
    font: { fontFiles: FONT_FILES, loadSystemFonts: false, defaultFontFamily: CHART_FONT },
  });
  return resvg.render().asPng();
}
