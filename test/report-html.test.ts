// report.html as a user sees it: a real sweep, its report opened in headless Chromium.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { CHROMIUM, systemTool } from './helpers/system-tools.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const run = promisify(execFile);
const hasChromium = systemTool('chromium', 'report-html: the HTML report opened in headless Chromium');

let tmp = '';
let dir: string;
beforeAll(async () => {
  if (!hasChromium) return;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-html-'));
  dir = path.join(tmp, 'sweep');
  await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', '--scenario', 'tiny-agent-sum-of-squares,seed-calibrated', '--steps', '4,8', '-n', '3', '--out', dir, '-q', '--no-transcripts'], { cwd: ROOT });
});
afterAll(() => tmp && fs.rmSync(tmp, { recursive: true, force: true }));

describe.skipIf(!hasChromium)('report.html in headless Chromium', () => {
  it('renders every chart as an SVG with marks, with no console errors and no network requests', async () => {
    const profile = fs.mkdtempSync(path.join(tmp, 'profile-'));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      viewport: { width: 1100, height: 900 },
    });
    try {
      const page = await context.newPage();
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
      expect(charts.map((c) => c.id)).toEqual(['chart-mean-cost', 'chart-cumulative-input-tokens', 'chart-cumulative-cost', 'chart-input-tokens-per-call', 'chart-cost-per-run', 'chart-stop-reasons', 'chart-success-vs-cost']);
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
            .filter(({ r }) => r.width > 0 && (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1))
            .map(({ chart, text }) => `${chart}: ${text}`);
        }),
      );
      expect(outside).toEqual([]);
      // ...and none cut short by a label limit (vega ends a truncated label with an ellipsis).
      const cut = await page.$$eval('figure.chart svg text', (ts) => ts.map((t) => t.textContent ?? '').filter((t) => t.endsWith('…')));
      expect(cut).toEqual([]);
      // The headline chart says what each lower limit saves.
      expect(await page.locator('#chart-mean-cost').textContent()).toMatch(/−\d+% vs steps=8/);

      const findings = await page.$$eval('#findings li', (li) => li.map((x) => x.textContent ?? ''));
      expect(findings.some((f) => /lowering MAX_STEPS from 8 to 4 (cuts mean cost by \d+%|costs the same)/.test(f))).toBe(true);
      // The decision opens the report: the first section, one recommended limit per scenario with its rule.
      expect(await page.$eval('main section', (s) => s.id)).toBe('decision');
      const decisions = await page.$$eval('#decision li', (li) => li.map((x) => x.textContent ?? ''));
      expect(decisions.map((d) => d.slice(0, d.indexOf(':')))).toEqual(['tiny-agent-sum-of-squares', 'seed-calibrated']);
      expect(decisions[0]).toMatch(/recommended MAX_STEPS \d+ — .* Rule: /);
      // seed-calibrated checks no answer: the ×k → ×r finding, and no recommended limit.
      expect(decisions[1]).toMatch(/^seed-calibrated: MAX_STEPS \d+ → \d+: steps taken ×[0-9.]+ .* No MAX_STEPS is recommended/);
      expect(await page.locator('#summary table tbody tr').count()).toBe(4);
      expect(await page.locator('#runs table tbody tr').count()).toBe(12);

      expect(errors).toEqual([]);
      expect(requests).toEqual([url]);
      const shot = path.join(ROOT, 'results', 'report-html-test.png');
      fs.mkdirSync(path.dirname(shot), { recursive: true });
      await page.screenshot({ path: shot, fullPage: true });
      expect(fs.statSync(shot).size).toBeGreaterThan(10_000);
    } finally {
      await context.close();
    }
  });
});
