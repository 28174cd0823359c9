// The ≈ mark on cost per successful task, through a whole report: a sweep whose costs spread widely with no
// budget gets it and its note; the same runs under a budget do not; nor does the committed reference sweep,
// whose costs spread far less than the mark's threshold (so even re-priced, with no budget to lean on, it is unmarked).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReports } from '../src/report/build.ts';
import { costPerSuccess, WIDE_LOG_SD, wideSpread } from '../src/report/stats/cost-per-success.ts';
import type { RunRecord } from '../src/contracts/records.ts';
import { synthRun, writeResults } from './helpers/records.ts';

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-spread-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/**
 * At step limits 5 and 10 (two, so the report weighs a decision and shows its table), twenty one-step runs each,
 * whose prompts grow ×e^1.7 per unit of z, z evenly from −1.73 to 1.73; three in four succeed.
 */
function sweep(maxCost: number | null) {
  return [5, 10].flatMap((maxSteps) =>
    Array.from({ length: 20 }, (_, repeat) => {
      const tokens = Math.round(20000 * Math.exp(1.7 * ((repeat - 9.5) / 5.5)));
      const input = () => tokens;
      const r = synthRun({ scenario: 'wide', maxSteps, repeat, input, stepsToDone: 1, success: repeat % 4 !== 0 });
      const settings = { ...r.run.settings, limits: { ...r.run.settings.limits, max_cost_usd: maxCost } };
      return { run: { ...r.run, settings }, steps: r.steps.map((s) => ({ ...s, settings })) };
    }),
  );
}

describe('the ≈ mark of widely spread, unbounded costs', () => {
  it('a sweep with no budget: the interval marked, the note under the table', async () => {
    const dir = path.join(tmp, 'free');
    writeResults(dir, sweep(null));
    const built = await buildReports(dir);
    for (const e of built.economics) expect(e.wide_spread!.log_sd).toBeGreaterThanOrEqual(WIDE_LOG_SD);
    const md = fs.readFileSync(path.join(dir, 'summary.md'), 'utf8');
    expect(md).toMatch(/\| \$[\d.]+ \(≈\$[\d.]+–\$[\d.]+\) \|/);
    const note =
      /≈ Costs vary widely in wide steps=5 \(geometric sd ×(\d+\.\d)\), wide steps=10 \(geometric sd ×\1\) and no budget bounds them: /;
    expect(md).toMatch(new RegExp(`^${note.source}`, 'm'));
    expect(fs.readFileSync(path.join(dir, 'report.html'), 'utf8')).toMatch(
      new RegExp(`<p class="note">${note.source}`),
    );
  });

  it('the same runs under a $0.50 budget: no mark, no note', async () => {
    const dir = path.join(tmp, 'budgeted');
    writeResults(dir, sweep(0.5));
    const built = await buildReports(dir);
    for (const e of built.economics) expect(e.wide_spread).toBeNull();
    expect(fs.readFileSync(path.join(dir, 'summary.md'), 'utf8')).not.toContain('≈');
    expect(fs.readFileSync(path.join(dir, 'report.html'), 'utf8')).not.toContain('≈');
  });

  it('results/reference: unmarked, with its budget and without', () => {
    const reference = path.join(import.meta.dirname, '../results/reference');
    const configs = new Map<string, RunRecord[]>();
    for (const line of fs.readFileSync(path.join(reference, 'runs.jsonl'), 'utf8').trim().split('\n')) {
      const r = JSON.parse(line) as RunRecord;
      configs.set(r.config_id, [...(configs.get(r.config_id) ?? []), r]);
    }
    expect(configs.size).toBeGreaterThan(1);
    for (const rs of configs.values()) {
      // Configurations without a check have no cost per success; the spread of their costs is what would mark one.
      expect(wideSpread(rs.map((r) => r.cost_usd))).toBeNull();
      expect(costPerSuccess(rs, rs[0]!.settings.limits.max_cost_usd)?.wide_spread ?? null).toBeNull();
    }
    expect(fs.readFileSync(path.join(reference, 'summary.md'), 'utf8')).not.toContain('≈');
  });
});
