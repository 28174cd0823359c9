// As a user runs them: re-pricing that reaches every report, and what-if limits derived from a sweep's
// records that equal the sweep actually run at that limit (sim, same seed).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usd } from '../src/report/format/numbers.ts';
import { benchInProcess } from './helpers/cli.ts';

/** The CLI in this process, one command at a time (a tsx child each paid ~1.5 s to start); rejects on a non-zero exit. */
async function bench(args: string[]): Promise<{ stdout: string; stderr: string }> {
  const r = await benchInProcess(args);
  if (r.code !== 0) throw Object.assign(new Error(r.stderr), r);
  return r;
}
const sweep = (dir: string, ...args: string[]) =>
  bench(['--scenario', 'seed-calibrated', '-n', '3', '--seed', '5', '--out', dir, '-q', '--no-transcripts', ...args]);

// Three sweeps, shared by the tests: the gpt-4o sweep (12,30), and 12 and 30 steps at the default price.
let tmp: string;
let fouro: string;
let at12: string;
let at30: string;
let fouroOut: string;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-decide-'));
  [fouro, at12, at30] = ['4o', 'at12', 'at30'].map((d) => path.join(tmp, d)) as [string, string, string];
  fouroOut = (await sweep(fouro, '--steps', '12,30', '--price-model', 'gpt-4o')).stdout;
  await sweep(at12, '--steps', '12');
  await sweep(at30, '--steps', '30');
}, 60_000);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** summary.csv as rows keyed by config_id, each a column → value map. */
function summaryCsv(dir: string): Map<string, Record<string, string>> {
  const [head, ...rows] = fs
    .readFileSync(path.join(dir, 'summary.csv'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.split(','));
  return new Map(rows.map((r) => [r[0]!, Object.fromEntries(head!.map((h, i) => [h, r[i]!]))]));
}

/** The cost-per-run chart's five-number row of one configuration, wherever the spec holds its data. */
/** The box of one configuration: charts name it within its scenario's panel (`steps=12`). */
function findBox(node: unknown, scenario: string, config: string): { median: number } | undefined {
  if (node === null || typeof node !== 'object') return undefined;
  const o = node as Record<string, unknown>;
  if (o.scenario === scenario && o.config === config && typeof o.median === 'number') return o as { median: number };
  for (const v of Object.values(o)) {
    const hit = findBox(v, scenario, config);
    if (hit) return hit;
  }
  return undefined;
}

describe('the gpt-4o sweep the issue reproduces', () => {
  it('opens with steps taken ×2 → input tokens ×r (no check, so no limit recommended) and says the budget, not the step limit, stopped steps=30', async () => {
    const stdout = fouroOut;
    expect(stdout.split('\n')[0]).toMatch(
      /^» seed-calibrated: MAX_STEPS 12 → 30: steps taken ×2 \(12\.0 → 24\.0\) → input tokens ×4\.0[0-9], \$0\.12 → \$0\.46 per run; at steps=30, 3 of 3 runs were stopped by the budget at step 24, so 30 was never reached\. No MAX_STEPS is recommended: the scenario checks no answer/,
    );
    expect(stdout).toContain('at steps=30, 3 of 3 runs were stopped by the budget at step 24, so 30 was never reached');
    expect(stdout).toContain('MAX_STEPS 12 → 30: steps taken ×2 (12.0 → 24.0)');
    expect(stdout).not.toMatch(/Steps ×2\.5|risks no success/);
  });
});

describe('bench report re-prices everything the reader reads', () => {
  it('--price-as gpt-4o re-prices summary.md, summary.csv, findings, volumes and the terminal, and says so; without it the recorded price is back', async () => {
    const mini = at12;
    const recorded = summaryCsv(mini).get('seed-calibrated steps=12')!;
    const { stdout } = await bench(['report', mini, '--price-as', 'gpt-4o']);
    expect(stdout).toContain(
      'Costs re-priced as gpt-4o ($2.5 input / $1.25 cached input / $10 output per 1M tokens) from recorded tokens',
    );
    const md = fs.readFileSync(path.join(mini, 'summary.md'), 'utf8');
    expect(md).toContain('costs re-priced as gpt-4o');
    // The same tokens at gpt-4o rates: what the sweep run at gpt-4o recorded (no brake fired differently at 12 steps).
    const repriced = summaryCsv(mini).get('seed-calibrated steps=12')!;
    const truth = summaryCsv(fouro).get('seed-calibrated steps=12')!;
    for (const col of ['cost_usd_mean', 'cost_usd_p95', 'cost_usd_per_month_at_10000_runs_per_day'])
      expect(Number(repriced[col])).toBeCloseTo(Number(truth[col]), 9);
    expect(Number(repriced.cost_usd_mean)).toBeGreaterThan(10 * Number(recorded.cost_usd_mean));
    expect(repriced.price_model).toBe('gpt-4o');
    expect(md).toContain(`costs ${usd(Number(truth.cost_usd_mean) * 10_000)} a day`);
    expect(fs.readFileSync(path.join(mini, 'report.html'), 'utf8')).toContain('re-priced as gpt-4o');
    // The charts too: the cost-per-run box of steps=12 has the gpt-4o median.
    const spec = fs.readFileSync(path.join(mini, 'charts', 'cost-per-run.vl.json'), 'utf8');
    expect(findBox(JSON.parse(spec), 'seed-calibrated', 'steps=12')?.median).toBeCloseTo(Number(truth.cost_usd_p50), 9);
    const steps = fs.readFileSync(path.join(mini, 'steps.csv'), 'utf8').trim().split('\n');
    const cum = steps[0]!.split(',').indexOf('cum_cost_usd');
    const last = steps
      .filter((l) => l.startsWith('seed-calibrated_steps=12_r000,'))
      .at(-1)!
      .split(',');
    // steps.csv too: the first run's cumulative cost is what the gpt-4o sweep billed that run.
    const runs = fs.readFileSync(path.join(fouro, 'runs.csv'), 'utf8').trim().split('\n');
    const cost = runs[0]!.split(',').indexOf('cost_usd');
    const first = runs.find((l) => l.startsWith('seed-calibrated_steps=12_r000,'))!;
    expect(Number(last[cum])).toBeCloseTo(Number(first.split(',')[cost]), 12);

    // The re-pricing table still compares with the cost as recorded (gpt-4o-mini), not with the re-priced one.
    const table = fs.readFileSync(path.join(mini, 'repricing.csv'), 'utf8').trim().split('\n');
    const off = table.find((l) => l.startsWith('seed-calibrated steps=12,seed-calibrated,gpt-4o,off,'))!.split(',');
    expect(Number(off[6])).toBeCloseTo(Number(truth.cost_usd_mean) / Number(recorded.cost_usd_mean), 6);

    await bench(['report', mini]);
    expect(fs.readFileSync(path.join(mini, 'summary.md'), 'utf8')).toContain('costs priced as recorded: gpt-4o-mini');
    expect(summaryCsv(mini).get('seed-calibrated steps=12')!.cost_usd_mean).toBe(recorded.cost_usd_mean);

    const custom = await bench(['report', mini, '--price-in', '1', '--price-out', '2']);
    expect(custom.stdout).toContain(
      'Costs re-priced as custom ($1 input / $1 cached input / $2 output per 1M tokens) from recorded tokens',
    );
    const r = summaryCsv(mini).get('seed-calibrated steps=12')!;
    expect(Number(r.cost_usd_mean)).toBeCloseTo(
      (Number(r.input_tokens_mean) * 1 + Number(r.output_tokens_mean) * 2) / 1e6,
      12,
    );
  });
});

describe('bench report --what-if', () => {
  it('--help lists the pricing flags bench run takes, and --what-if with its limits', async () => {
    const { stdout } = await bench(['report', '--help']);
    for (const f of [
      '--price-model <name>',
      '--price-in <usd>',
      '--price-out <usd>',
      '--price-cached <usd>',
      '--pricing <file>',
      '--price-as <models>',
      '--what-if <limit=values>',
    ])
      expect(stdout).toContain(f);
    expect(stdout.replace(/\s+/g, ' ')).toContain('limits: steps, tokens, cost, timeout, repeat, calls');
  });

  it('a what-if at 12 from a 30-step sweep equals the sweep actually run at 12, and is marked derived', async () => {
    // at12's reports back at its recorded price (the test above re-priced them).
    const { stdout } = await bench(['report', at30, '--what-if', 'steps=12']);
    await bench(['report', at12]);
    expect(stdout).toMatch(/seed-calibrated steps=12 \(derived\)\s+3 /);
    const derived = summaryCsv(at30).get('seed-calibrated steps=12 (derived)')!;
    const actual = summaryCsv(at12).get('seed-calibrated steps=12')!;
    for (const col of [
      'runs',
      'steps_mean',
      'steps_max',
      'input_tokens_mean',
      'output_tokens_mean',
      'cost_usd_mean',
      'cost_usd_p95',
      'stop_max_steps',
      'stop_done',
      'stop_max_cost',
      'success_rate',
    ])
      expect(derived[col], col).toBe(actual[col]);
    const rows = fs.readFileSync(path.join(at30, 'whatif_runs.csv'), 'utf8').trim().split('\n');
    expect(rows[0]).toMatch(/,derived_from$/);
    expect(rows).toHaveLength(4);
    expect(fs.readFileSync(path.join(at30, 'summary.md'), 'utf8')).toContain(
      '6 runs (3 derived by what-if, no model called), 2 configurations',
    );
    // The derived limit joins the decision: the 30-step sweep now compares two limits (no check: none recommended).
    expect(stdout.split('\n')[0]).toMatch(
      /^» seed-calibrated: MAX_STEPS 12 \(derived\) → 30: steps taken ×2\.5 \(12\.0 → 30\.0\)/,
    );
  });

  it('refuses, with its reason, a limit looser than the brake that stopped the runs', async () => {
    const dir = fouro;
    const { stdout } = await bench(['report', dir, '--what-if', 'cost=off', '--what-if', 'cost=0.3']);
    expect(stdout).toContain(
      'what-if cost=off from seed-calibrated steps=30 refused: seed-calibrated steps=30: runs were stopped by max_cost at 0.5 (step 24); what came after was never recorded, so max_cost_usd off needs new runs.',
    );
    expect(summaryCsv(dir).has('seed-calibrated steps=30 cost=0.3 (derived)')).toBe(true);
  });
});
