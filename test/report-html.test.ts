// report.html as a user sees it: a real sweep, its report opened in headless Chromium.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { CHROMIUM, systemTool } from './helpers/system-tools.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
// The bundle users run (test/global-setup.ts builds it from these sources): tsx would transform src/ again in each child.
const BIN = path.join(ROOT, 'bin/bench.js');
const run = promisify(execFile);
const hasChromium = systemTool('chromium', 'report-html: the HTML report opened in headless Chromium');

let tmp = '';
let dir: string;
let checkDir: string;
beforeAll(async () => {
  if (!hasChromium) return;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-html-'));
  dir = path.join(tmp, 'sweep');
  await run(
    process.execPath,
    [
      BIN,
      '--scenario',
      'tiny-agent-sum-of-squares,seed-calibrated',
      '--steps',
      '4,8',
      '-n',
      '3',
      '--out',
      dir,
      '-q',
      '--no-transcripts',
    ],
    { cwd: ROOT },
  );
  // A check with one budget breached (the tiny agent takes 3 or 4 steps) and one that holds.
  const budgets = path.join(tmp, 'budgets.yaml');
  fs.writeFileSync(
    budgets,
    'model: sim\nrepeats: 3\nseed: 1\nlimits: { steps: 8 }\nscenarios:\n  - scenario: tiny-agent-sum-of-squares\n    assertions:\n      steps: { max: 2 }\n      cost_usd: { p95: 0.01 }\n',
  );
  checkDir = path.join(tmp, 'check');
  const check = await run(process.execPath, [BIN, 'check', budgets, '--out', checkDir, '-q'], { cwd: ROOT }).then(
    () => 0,
    (e: { code: number }) => e.code,
  );
  expect(check).toBe(1);
}, 120_000);
afterAll(() => tmp && fs.rmSync(tmp, { recursive: true, force: true }));

// One Chromium for the file, launched on first use: each test gets a context of its own (its own
// storage and cache, as a fresh profile would give), without a browser start of its own (~2 s CPU each).
let browser: Promise<Browser> | undefined;
afterAll(async () => {
  await (await browser)?.close();
});

/** A page of headless Chromium in a fresh context, closed after `use`. */
async function inChromium<T>(use: (page: Page) => Promise<T>): Promise<T> {
  browser ??= chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const context = await (await browser).newContext({ viewport: { width: 1100, height: 900 } });
  try {
    return await use(await context.newPage());
  } finally {
    await context.close();
  }
}

describe.skipIf(!hasChromium)('report.html in headless Chromium', () => {
  it('renders every chart as an SVG with marks, with no console errors and no network requests', async () => {
    await inChromium(async (page) => {
      const errors: string[] = [];
      const requests: string[] = [];
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      page.on('pageerror', (e) => errors.push(String(e)));
      page.on('request', (r) => requests.push(r.url()));
      const url = pathToFileURL(path.join(dir, 'report.html')).href;
      await page.goto(url, { waitUntil: 'load' });

      const charts = await page.$$eval('figure.chart', (figs) =>
        figs.map((f) => ({
          id: f.id,
          svgs: f.querySelectorAll('svg').length,
          // Data marks (vega tags them role-mark), not axes or legends.
          marks: f.querySelectorAll('g.role-mark path, g.role-mark line, g.role-mark text').length,
          width: f.querySelector('svg')?.getBoundingClientRect().width ?? 0,
        })),
      );
      expect(charts.map((c) => c.id)).toEqual([
        'chart-mean-cost',
        'chart-cumulative-input-tokens',
        'chart-cumulative-cost',
        'chart-input-tokens-per-call',
        'chart-cost-per-run',
        'chart-stop-reasons',
        'chart-success-vs-cost',
      ]);
      for (const c of charts) {
        expect(c.svgs, c.id).toBe(1);
        expect(c.marks, c.id).toBeGreaterThan(0);
        expect(c.width, c.id).toBeGreaterThan(300);
      }
      // Nothing clipped: every piece of text of every chart lies inside its SVG, as laid out by the browser.
      const outside = await page.$$eval('figure.chart svg', (svgs) =>
        svgs.flatMap((svg) => {
          const box = svg.getBoundingClientRect();
          return [...svg.querySelectorAll('text')]
            .filter((t) => (t.textContent ?? '').trim() !== '' && t.getAttribute('opacity') !== '0')
            .map((t) => ({ chart: svg.closest('figure')!.id, text: t.textContent, r: t.getBoundingClientRect() }))
            .filter(
              ({ r }) =>
                r.width > 0 &&
                (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1),
            )
            .map(({ chart, text }) => `${chart}: ${text}`);
        }),
      );
      expect(outside).toEqual([]);
      // ...and none cut short by a label limit (vega ends a truncated label with an ellipsis).
      const cut = await page.$$eval('figure.chart svg text', (ts) =>
        ts.map((t) => t.textContent ?? '').filter((t) => t.endsWith('…')),
      );
      expect(cut).toEqual([]);
      // The headline chart says what each lower limit saves.
      expect(await page.locator('#chart-mean-cost').textContent()).toMatch(/−\d+% vs steps=8/);

      const findings = await page.$$eval('#findings li', (li) => li.map((x) => x.textContent ?? ''));
      expect(
        findings.some((f) => /lowering MAX_STEPS from 8 to 4 (cuts mean cost by \d+%|costs the same)/.test(f)),
      ).toBe(true);
      // The decision opens the report: the first section, one recommended limit per scenario with its rule.
      expect(await page.$eval('main section', (s) => s.id)).toBe('decision');
      // Each decision's whole text, sentence by sentence under its one line.
      const decisions = await page.$$eval('#decision li', (li) =>
        li.map((x) => [...x.querySelectorAll('details > p')].map((p) => p.textContent).join(' ')),
      );
      expect(decisions.map((d) => d.slice(0, d.indexOf(':')))).toEqual([
        'tiny-agent-sum-of-squares',
        'seed-calibrated',
      ]);
      expect(decisions[0]).toMatch(/recommended MAX_STEPS \d+ — .* Rule: /);
      // seed-calibrated checks no answer: the ×k → ×r finding, and no recommended limit.
      expect(decisions[1]).toMatch(
        /^seed-calibrated: MAX_STEPS \d+ → \d+: steps taken ×[0-9.]+ .* No MAX_STEPS is recommended/,
      );
      expect(await page.locator('#summary table tbody tr').count()).toBe(4);
      expect(await page.locator('#runs table tbody tr').count()).toBe(12);

      expect(errors).toEqual([]);
      expect(requests).toEqual([url]);
      const shot = path.join(ROOT, 'results', 'report-html-test.png');
      fs.mkdirSync(path.dirname(shot), { recursive: true });
      await page.screenshot({ path: shot, fullPage: true });
      expect(fs.statSync(shot).size).toBeGreaterThan(10_000);
    });
  });

  it('gives every legend swatch the colour of the marks it names, as drawn', async () => {
    const { mismatches, legends } = await inChromium(async (page) => {
      await page.goto(pathToFileURL(path.join(dir, 'report.html')).href, { waitUntil: 'load' });
      return page.$$eval('figure.chart svg', (svgs) => {
        // What a mark or swatch paints: its fill, or for a line (no fill) its stroke, as the browser computes it.
        const paint = (el: Element) => {
          const cs = getComputedStyle(el);
          return cs.fill !== 'none' ? cs.fill : cs.stroke;
        };
        const out = { mismatches: [] as string[], legends: [] as Array<{ chart: string; labels: string[] }> };
        for (const svg of svgs) {
          const chart = svg.closest('figure')!.id;
          const marks = [...svg.querySelectorAll('g.role-mark path, g.role-mark line')];
          for (const legend of svg.querySelectorAll('g.role-legend')) {
            const symbols = [...legend.querySelectorAll('g.role-legend-symbol path')];
            const labels = [...legend.querySelectorAll('g.role-legend-label text')].map((t) => t.textContent ?? '');
            out.legends.push({ chart, labels });
            labels.forEach((label, i) => {
              const swatch = paint(symbols[i]!);
              // The marks a legend entry names carry its value in their description (vega's aria-label).
              const named = marks.filter((m) =>
                (m.getAttribute('aria-label') ?? '')
                  .split('; ')
                  .some((f) => /^(config|reason|measure|kind): /.test(f) && f.slice(f.indexOf(': ') + 2) === label),
              );
              if (named.length === 0) out.mismatches.push(`${chart}: "${label}" names no mark`);
              for (const m of named)
                if (paint(m) !== swatch) out.mismatches.push(`${chart}: "${label}" swatch ${swatch}, mark ${paint(m)}`);
            });
          }
        }
        return out;
      });
    });
    expect(mismatches).toEqual([]);
    // The charts that colour by configuration name every one of them, stop reasons name theirs.
    for (const chart of [
      'chart-cumulative-input-tokens',
      'chart-cumulative-cost',
      'chart-input-tokens-per-call',
      'chart-success-vs-cost',
    ])
      expect(
        legends.filter((l) => l.chart === chart).map((l) => l.labels),
        chart,
      ).toEqual([['steps=4', 'steps=8']]);
    expect(legends.find((l) => l.chart === 'chart-stop-reasons')!.labels).toContain('done');
  });

  it('draws two configurations with the same curve both, each colour showing on screen', async () => {
    await inChromium(async (page) => {
      await page.goto(pathToFileURL(path.join(dir, 'report.html')).href, { waitUntil: 'load' });
      // tiny-agent-sum-of-squares answers by step 4 under either limit: steps=4 and steps=8 draw the very same line.
      const lines = await page.$$eval(
        '#chart-cumulative-input-tokens g.role-mark path[aria-roledescription="line mark"]',
        (ps) =>
          ps.map((p) => ({
            config: /config: ([^;]+)/.exec(p.getAttribute('aria-label') ?? '')?.[1] ?? null,
            d: p.getAttribute('d'),
            stroke: getComputedStyle(p).stroke,
            box: p.getBoundingClientRect().toJSON() as { x: number; y: number; width: number; height: number },
          })),
      );
      const same = lines.filter(
        (l) => l.config !== null && lines.some((o) => o !== l && o.config !== null && o.d === l.d),
      );
      expect(same.map((l) => l.config).sort()).toEqual(['steps=4', 'steps=8']);
      expect(same[0]!.stroke).not.toBe(same[1]!.stroke);
      // On screen: pixels of both colours along the shared line.
      const box = same[0]!.box;
      const png = await page.screenshot({
        clip: { x: box.x, y: box.y - 2, width: box.width, height: box.height + 4 },
        fullPage: true,
      });
      const counts = await page.evaluate(
        async ({ data, strokes }) => {
          const img = new Image();
          img.src = `data:image/png;base64,${data}`;
          await img.decode();
          const canvas = document.createElement('canvas');
          [canvas.width, canvas.height] = [img.width, img.height];
          const g = canvas.getContext('2d')!;
          g.drawImage(img, 0, 0);
          const px = g.getImageData(0, 0, img.width, img.height).data;
          return strokes.map((s) => {
            const [r, gr, b] = s.match(/\d+/g)!.map(Number);
            let n = 0;
            for (let i = 0; i < px.length; i += 4)
              if (Math.hypot(px[i]! - r!, px[i + 1]! - gr!, px[i + 2]! - b!) < 40) n++;
            return n;
          });
        },
        { data: png.toString('base64'), strokes: same.map((l) => l.stroke) },
      );
      for (const [i, n] of counts.entries()) expect(n, same[i]!.config!).toBeGreaterThan(50);
    });
  });

  it('scales the success-vs-cost axes to its points and their intervals, not from zero', async () => {
    const spec = JSON.parse(fs.readFileSync(path.join(dir, 'charts', 'success-vs-cost.vl.json'), 'utf8')) as {
      data: { values: Array<Record<string, number | string>> };
    };
    const points = spec.data.values.filter((v) => v.kind !== 'reach') as Array<Record<string, number>>;
    const span = (lo: string, hi: string) =>
      [Math.min(...points.map((p) => p[lo]!)), Math.max(...points.map((p) => p[hi]!))] as const;
    const [costLo, costHi] = span('cost_lo', 'cost_hi');
    const [rateLo, rateHi] = span('lo', 'hi');
    const axes = await inChromium(async (page) => {
      await page.goto(pathToFileURL(path.join(dir, 'report.html')).href, { waitUntil: 'load' });
      return page.$$eval('#chart-success-vs-cost g.role-axis[aria-label]', (as) =>
        as.map((a) => a.getAttribute('aria-label') ?? ''),
      );
    });
    const from = (axis: RegExp) => {
      const m = /values from \$?([\d.]+)%? to \$?([\d.]+)%?/.exec(axes.find((a) => axis.test(a)) ?? '');
      expect(m, String(axis)).not.toBeNull();
      return [Number(m![1]), Number(m![2])] as const;
    };
    const [x0, x1] = from(/^X-axis/);
    expect(x0).toBeGreaterThan(0);
    expect(x0).toBeLessThanOrEqual(costLo);
    expect(x1).toBeGreaterThanOrEqual(costHi * 0.999);
    expect(x1 - x0).toBeLessThan(1.5 * (costHi - costLo));
    const [y0, y1] = from(/^Y-axis/).map((v) => v / 100) as [number, number];
    expect(y0).toBeGreaterThan(0);
    expect(y0).toBeLessThanOrEqual(rateLo + 0.005);
    expect(y1).toBeGreaterThanOrEqual(rateHi - 0.005);
    expect(y1 - y0).toBeLessThan(1.5 * (rateHi - rateLo) + 0.01);
  });

  it('titles the report with its question and answer, and gives each decision one line', async () => {
    const summary = fs
      .readFileSync(path.join(dir, 'summary.csv'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(','));
    const col = summary[0]!.indexOf('cost_usd_mean');
    const cost = (id: string) => Number(summary.find((r) => r[0] === id)![col]);
    const ratio = cost('seed-calibrated steps=8') / cost('seed-calibrated steps=4');
    const seen = await inChromium(async (page) => {
      await page.goto(pathToFileURL(path.join(dir, 'report.html')).href, { waitUntil: 'load' });
      return {
        title: await page.title(),
        h1: (await page.textContent('h1'))!.replace(/\s+/g, ' ').trim(),
        decisions: await page.$$eval('#decision li', (lis) =>
          lis.map((li) => {
            const summary = li.querySelector('details > summary');
            const lineHeight = summary ? parseFloat(getComputedStyle(summary).lineHeight) : 0;
            return {
              open: li.querySelector('details')?.open ?? null,
              lines: summary ? summary.getBoundingClientRect().height / lineHeight : 0,
              whole: [...li.querySelectorAll('details > p')].map((p) => p.textContent).join(' '),
            };
          }),
        ),
      };
    });
    expect(seen.h1).toMatch(/^What does MAX_STEPS 4 → 8 cost\? /);
    expect(seen.h1).toContain(`seed-calibrated: ×${+ratio.toFixed(2)} per run`);
    expect(seen.title).toBe(seen.h1);
    expect(seen.decisions).toHaveLength(2);
    for (const d of seen.decisions) {
      expect(d.open).toBe(false);
      expect(d.lines).toBeLessThan(1.5);
    }
    expect(seen.decisions[0]!.whole).toMatch(/recommended MAX_STEPS \d+ — .* Rule: /);
  });

  it("marks a breached budget's row in colour as well as in its word", async () => {
    const rows = await inChromium(async (page) => {
      await page.goto(pathToFileURL(path.join(checkDir, 'report.html')).href, { waitUntil: 'load' });
      return page.$$eval('#check tbody tr', (trs) =>
        trs.map((tr) => ({
          text: tr.textContent ?? '',
          background: getComputedStyle(tr.querySelector('td')!).backgroundColor,
        })),
      );
    });
    const breached = rows.find((r) => r.text.includes('steps max ≤ 2'))!;
    const holds = rows.find((r) => r.text.includes('cost_usd p95'))!;
    expect(breached.text).toMatch(/^breached/);
    expect(holds.text).toMatch(/^holds/);
    const [r, g, b] = breached.background.match(/\d+/g)!.map(Number);
    expect(r! - Math.max(g!, b!)).toBeGreaterThan(30);
    expect(holds.background).not.toBe(breached.background);
  });
});
