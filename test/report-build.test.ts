import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReports } from '../src/report/build.ts';
import type { StepPoint } from '../src/report/stats/step-points.ts';
import { lineEnds } from '../src/report/charts/steps.ts';
import { runRow, toCsv } from '../src/report/render/csv.ts';
import { quantile } from '../src/stats/quantile.ts';
import { parseVolumes } from '../src/report/stats/volume.ts';
import { decodePng, inkPixels } from './helpers/png.ts';
import { PRICE, sampleSweep, synthRun, writeResults } from './helpers/records.ts';
import { usd } from '../src/report/format/numbers.ts';
import { benchInProcess } from './helpers/cli.ts';

/** The CLI in this process (a child each paid ~1.5 s of tsx start-up): rejects, as a failed child would, on a non-zero exit. */
async function bench(args: string[]): Promise<{ stdout: string; stderr: string }> {
  const r = await benchInProcess(args);
  if (r.code !== 0) throw r;
  return r;
}

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-report-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('buildReports', () => {
  it('writes every artifact: CSVs, seven charts as spec + SVG + PNG, report.html, summary.md', async () => {
    const dir = path.join(tmp, 'full');
    writeResults(dir, sampleSweep([10, 30], 3));
    const built = await buildReports(dir, { volumes: parseVolumes('10000/day') });
    for (const f of [
      'steps.csv',
      'runs.csv',
      'summary.csv',
      'steps_by_index.csv',
      'fit.csv',
      'step_ratios.csv',
      'step_limit_savings.csv',
      'repricing.csv',
      'report.html',
      'summary.md',
    ])
      expect(fs.statSync(path.join(dir, f)).size, f).toBeGreaterThan(0);
    const charts = [
      'mean-cost',
      'cumulative-input-tokens',
      'cumulative-cost',
      'input-tokens-per-call',
      'cost-per-run',
      'stop-reasons',
      'success-vs-cost',
    ];
    for (const c of charts) {
      const spec = JSON.parse(fs.readFileSync(path.join(dir, 'charts', `${c}.vl.json`), 'utf8'));
      expect(spec.$schema).toMatch(/vega-lite/);
      expect(fs.readFileSync(path.join(dir, 'charts', `${c}.svg`), 'utf8')).toMatch(/^<svg[^>]*class="marks"/);
    }
    expect(built.files).toContain('charts/success-vs-cost.png');

    const summaryCsv = fs.readFileSync(path.join(dir, 'summary.csv'), 'utf8').split('\n')[0]!.split(',');
    expect(summaryCsv).toEqual(
      expect.arrayContaining([
        'input_tokens_mean',
        'cost_usd_mean',
        'success_rate_ci95_lo',
        'cost_usd_per_day_at_10000_runs_per_day',
        'cost_usd_per_month_at_10000_runs_per_day',
      ]),
    );
    for (const h of summaryCsv) expect(h).toMatch(/^[a-z0-9_]+$/);

    const ratios = fs.readFileSync(path.join(dir, 'step_ratios.csv'), 'utf8').trim().split('\n');
    expect(ratios[0]).toBe(
      'scenario,from_max_steps,to_max_steps,from_steps_mean,to_steps_mean,steps_ratio,input_tokens_ratio,fit_input_tokens_ratio',
    );
    const seedRow = ratios.find((l) => l.startsWith('seed-shaped,'))!.split(',');
    expect(seedRow.slice(1, 6).map(Number)).toEqual([10, 30, 10, 30, 3]);
    expect(Number(seedRow[6])).toBeCloseTo(267_000 / 29_000, 9);
    const savings = fs.readFileSync(path.join(dir, 'step_limit_savings.csv'), 'utf8');
    expect(savings).toMatch(
      /^scenario,config_id,max_steps,highest_max_steps,cost_usd_mean,highest_cost_usd_mean,cost_saved_fraction,runs,successes_lost,highest_successes,highest_runs\n/,
    );
    expect(savings).toMatch(/\nchecked,checked steps=10,10,30,[0-9.e-]+,[0-9.e-]+,0\.[0-9]+,3,1,3,3\n/);

    const md = fs.readFileSync(path.join(dir, 'summary.md'), 'utf8');
    expect(md).toContain('| seed-shaped | 10 → 30 | 10.0 → 30.0 | ×3 | ×9.21 | ×9.21 |');
    expect(md).toContain('- checked: lowering MAX_STEPS from 30 to 10 cuts mean cost by');
    expect(md).toContain('loses 1 of 3 successes');
    // The decision opens summary.md (without a check, the ×k → ×r finding instead), and cost per successful task sits next to cost per run.
    expect(md.split('\n')[2]).toMatch(
      /^\*\*seed-shaped: MAX_STEPS 10 → 30: steps taken ×3 \(10\.0 → 30\.0\) → input tokens ×9\.21, .* No MAX_STEPS is recommended: the scenario checks no answer/,
    );
    expect(md).toMatch(/\n\*\*checked: recommended MAX_STEPS \d+ — .* Rule: /);
    expect(md).toContain(
      '| configuration | success (95% CI) | cost per run | cost per successful task (95% CI) | +1 step (measured) | +1 step (fit) |',
    );
  });

  it('the PNGs carry visible text: the title area has ink (the shipped font was found)', async () => {
    const dir = path.join(tmp, 'png');
    writeResults(dir, sampleSweep([10, 30], 2));
    await buildReports(dir);
    for (const c of ['cumulative-input-tokens', 'stop-reasons', 'success-vs-cost']) {
      const img = decodePng(fs.readFileSync(path.join(dir, 'charts', `${c}.png`)));
      // Title at the top left, rendered at 2× scale: ~15 px type becomes ~30 px rows of glyphs.
      const title = inkPixels(img, { x0: 0, y0: 0, x1: 500, y1: 40 });
      expect(title, c).toBeGreaterThan(500);
      // And the background really is background: a strip to the right of the title is clean.
      expect(inkPixels(img, { x0: img.width - 60, y0: 0, x1: img.width, y1: 20 }), c).toBe(0);
    }
  });
});

describe('buildReports on runs held lean', () => {
  it('writes runs.csv whole (detail, answer, seed) in configuration and repeat order from records in any order, and holds runs without their text', async () => {
    const dir = path.join(tmp, 'lean');
    const sweep = sampleSweep([10, 30], 3);
    // Records arrive in completion order: reversed here, with a multi-byte answer to read back by byte offset.
    sweep[1]!.run.answer = 'réponse ✓ 338350';
    writeResults(dir, [...sweep].reverse());
    const built = await buildReports(dir);

    const order = built.summary.map((c) => c.config_id);
    const expected = sweep
      .map((x) => x.run)
      .sort((a, b) => order.indexOf(a.config_id) - order.indexOf(b.config_id) || a.settings.repeat - b.settings.repeat);
    expect(fs.readFileSync(path.join(dir, 'runs.csv'), 'utf8')).toBe(toCsv(expected.map(runRow)));
    expect(fs.readFileSync(path.join(dir, 'report.html'), 'utf8')).toContain('MAX_STEPS=10 reached');

    expect(built.runs.map((r) => r.run_id)).toEqual(expected.map((r) => r.run_id));
    expect(built.runs.every((r) => !('answer' in r) && !('stop_detail' in r))).toBe(true);
    expect(built.runs.map((r) => r.repeat)).toEqual(expected.map((r) => r.settings.repeat));
    // One settings object per configuration, whatever the number of its runs.
    const [a, b] = built.runs.filter((r) => r.config_id === expected[0]!.config_id);
    expect(a!.settings).toBe(b!.settings);
    expect(new Set(built.runs.map((r) => r.settings)).size).toBe(built.summary.length);
  });

  it('gives the same reports whatever order the runs completed in (sums and means taken in plan order)', async () => {
    const sweep = sampleSweep([10, 30], 7);
    // Costs whose sum depends on the order it is taken in, as real ones do.
    sweep.forEach((x, i) => {
      x.run.cost_usd = [0.1, 0.2, 0.3, 1e-17, 0.7, 3.3e-5][i % 6]! * (1 + i / 7);
      // Its steps say the same (a run record is checked against them): the whole cost on the first.
      x.steps.forEach((s, k) =>
        Object.assign(s, { cost_usd: k === 0 ? x.run.cost_usd : 0, cum_cost_usd: x.run.cost_usd }),
      );
    });
    const orders = [
      sweep,
      [...sweep].reverse(),
      [...sweep].sort(
        (a, b) => (a.run.run_id.length % 3) - (b.run.run_id.length % 3) || b.run.cost_usd - a.run.cost_usd,
      ),
      // In plan order (the scenarios as meta.json plans them, then configuration, then repeat), as an import
      // writes: steps.jsonl is read in one pass; the orders above take two.
      [...sweep].sort(
        (a, b) =>
          Number(a.run.scenario === 'checked') - Number(b.run.scenario === 'checked') ||
          a.run.config_id.localeCompare(b.run.config_id) ||
          a.run.run_id.localeCompare(b.run.run_id), // r0…r6: one digit
      ),
    ];
    // And re-priced: a step's cum_cost_usd is then summed by the report, in either pass.
    const repriced = { model: 'gpt-4o', input_per_1m: 2.5, cached_input_per_1m: 1.25, output_per_1m: 10 };
    const outputs: string[] = [];
    for (const [i, order] of orders.entries()) {
      const dir = path.join(tmp, `order-${i}`);
      writeResults(dir, order);
      // The sweep's meta.json gives the planned scenario order (without it, the order they first appear in).
      // A whole meta.json (the reference report's, this sweep's fields over it): one that fails its schema is read as absent.
      const reference = JSON.parse(
        fs.readFileSync(path.join(import.meta.dirname, '..', 'results', 'reference', 'meta.json'), 'utf8'),
      );
      const meta = {
        ...reference,
        scenarios: ['seed-shaped', 'checked'],
        command: [],
        runs_planned: sweep.length,
        runs_done: sweep.length,
        status: 'complete',
        repeat: 7,
        seed: 1,
        created_at: '2026-11-30T00:00:00Z',
        git_commit: null,
      };
      fs.writeFileSync(path.join(dir, 'meta.json'), JSON.stringify(meta));
      for (const price of [undefined, repriced]) {
        await buildReports(dir, price ? { price } : {});
        outputs.push(
          // steps.csv and steps_by_index.csv: read in one pass when the file is in plan order, else in two.
          [
            'summary.csv',
            'repricing.csv',
            'runs.csv',
            'step_limit_savings.csv',
            'fit.csv',
            'step_ratios.csv',
            'steps.csv',
            'steps_by_index.csv',
          ]
            .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))
            .join('\n'),
        );
      }
    }
    // Per order, the plain report then the re-priced one.
    for (let i = 2; i < outputs.length; i++) expect(outputs[i], `order ${i >> 1}`).toBe(outputs[i % 2]);
    expect(outputs[1]).not.toBe(outputs[0]);
  });

  it('builds from a directory with steps but no runs.jsonl (no record to read again, no file needed)', async () => {
    const dir = path.join(tmp, 'no-runs');
    writeResults(dir, sampleSweep([10], 1));
    fs.rmSync(path.join(dir, 'runs.jsonl'));
    const built = await buildReports(dir);
    expect(built.runs).toEqual([]);
    expect(fs.existsSync(path.join(dir, 'steps.csv'))).toBe(true);
  });

  it('draws cost per run from five numbers per configuration, not one value per run', async () => {
    const dir = path.join(tmp, 'box');
    const sweep = sampleSweep([10, 30], 5);
    writeResults(dir, sweep);
    const built = await buildReports(dir);
    const spec = JSON.parse(fs.readFileSync(path.join(dir, 'charts', 'cost-per-run.vl.json'), 'utf8'));
    expect(spec.data.values).toHaveLength(built.summary.length);
    const costs = sweep.filter((x) => x.run.config_id === 'checked steps=10').map((x) => x.run.cost_usd);
    const row = spec.data.values.find(
      (v: { scenario: string; config: string }) => v.scenario === 'checked' && v.config === 'steps=10',
    );
    expect(row).toEqual({
      scenario: 'checked',
      config: 'steps=10',
      runs: 5,
      min: Math.min(...costs),
      q1: quantile(costs, 0.25),
      median: quantile(costs, 0.5),
      q3: quantile(costs, 0.75),
      max: Math.max(...costs),
    });
  });
});

describe('a run whose model returned more output than max_tokens', () => {
  it('has its overrun billed at the report’s price: re-priced as gpt-4o, at gpt-4o’s output rate', async () => {
    const dir = path.join(tmp, 'overrun');
    const { run, steps } = synthRun({ scenario: 'checked', maxSteps: 3, repeat: 0, input: () => 1000 });
    // Each of the 3 calls returned 150 output tokens against a limit of 100: 150 tokens beyond it in all.
    const capped = { ...run.settings, max_output_tokens: 100 };
    for (const r of [run, ...steps]) r.settings = capped;
    run.extra = {
      output_overrun: {
        calls: 3,
        tokens: 150,
        cost_usd: (150 * PRICE.output_per_1m) / 1e6,
        first_step: 1,
        largest_output_tokens: 150,
        max_output_tokens: 100,
      },
    };
    writeResults(dir, [{ run, steps }]);
    const sentence = (cost: number) => `(150 tokens, ${usd(cost)} beyond the budget brake's worst case)`;
    const summary = () => fs.readFileSync(path.join(dir, 'summary.md'), 'utf8');
    await buildReports(dir);
    expect(summary()).toContain(sentence(150 * 0.6e-6));
    await buildReports(dir, {
      price: { model: 'gpt-4o', input_per_1m: 2.5, cached_input_per_1m: 1.25, output_per_1m: 10 },
    });
    expect(summary()).toContain(sentence(150 * 10e-6));
  });
});

describe('cumulative input tokens chart', () => {
  it('marks and labels where each configuration stops: a lower limit is not hidden under a higher one', async () => {
    const dir = path.join(tmp, 'ends');
    // 'early' answers at step 4 under either limit: its two lines end at the same point.
    const early = [10, 30].map((maxSteps) =>
      synthRun({ scenario: 'early', maxSteps, repeat: 0, input: (n) => 100 * n, stepsToDone: 4 }),
    );
    writeResults(dir, [...sampleSweep([10, 30], 2), ...early]);
    await buildReports(dir);
    const spec = JSON.parse(fs.readFileSync(path.join(dir, 'charts', 'cumulative-input-tokens.vl.json'), 'utf8'));
    const ends = spec.data.values
      .filter((v: { kind: string }) => v.kind === 'end')
      .filter((v: { scenario: string }) => v.scenario === 'seed-shaped');
    // steps=10's line is the first ten steps of steps=30's: both drawn (steps=10 dashed over it), its end marked on it.
    const measured = spec.data.values.filter(
      (v: { kind: string; scenario: string }) => v.kind === 'measured' && v.scenario === 'seed-shaped',
    );
    expect(new Set(measured.map((p: { config: string }) => p.config))).toEqual(new Set(['steps=10', 'steps=30']));
    const line = measured.filter((p: { config: string }) => p.config === 'steps=30');
    const at = (step: number) => line.find((p: { step: number }) => p.step === step).value;
    expect(ends).toEqual([
      {
        scenario: 'seed-shaped',
        step: 10,
        value: at(10),
        label: 'steps=10',
        configs: 'steps=10',
        side: 'right',
        kind: 'end',
      },
      {
        scenario: 'seed-shaped',
        step: 30,
        value: at(30),
        label: 'steps=30',
        configs: 'steps=30',
        side: 'left',
        kind: 'end',
      },
    ]);
    // Lines that end at the same point share one label, in natural order.
    const shared = spec.data.values.filter(
      (v: { kind: string; scenario: string }) => v.kind === 'end' && v.scenario === 'early',
    );
    expect(shared).toEqual([
      {
        scenario: 'early',
        step: 4,
        value: 1000,
        label: 'steps=10, steps=30',
        configs: 'steps=10, steps=30',
        side: 'left',
        kind: 'end',
      },
    ]);
  });

  it('labels many configurations ending together by what they share, and lists them all in the tooltip', () => {
    const point = (config: string, step: number, cum: number): StepPoint => ({
      config_id: `s ${config}`,
      scenario: 's',
      max_steps: null,
      step,
      calls: 1,
      runs: 1,
      input_tokens: 0,
      cum_input_tokens: cum,
      cum_cost_usd: 0,
    });
    const names = ['steps=12 reflection=final', 'steps=12 reflection=off', 'steps=12 reflection=every-step'];
    const points = [
      ...names.flatMap((n) => [point(n, 1, 10), point(n, 2, 30)]),
      point('steps=30 reflection=off', 1, 10),
      point('steps=30 reflection=off', 9, 500),
    ];
    const ends = lineEnds(points);
    expect(ends).toContainEqual({
      scenario: 's',
      step: 2,
      value: 30,
      label: 'steps=12 · 3 configurations',
      configs: 'steps=12 reflection=every-step, steps=12 reflection=final, steps=12 reflection=off',
      side: 'right',
    });
    expect(ends).toContainEqual({
      scenario: 's',
      step: 9,
      value: 500,
      label: 'steps=30 reflection=off',
      configs: 'steps=30 reflection=off',
      side: 'left',
    });
  });
});

describe('bench report', () => {
  it('rebuilds from records with a truncated last line of steps.jsonl and says how many lines it skipped', async () => {
    const dir = path.join(tmp, 'cut');
    writeResults(dir, sampleSweep([10, 30], 2));
    const steps = path.join(dir, 'steps.jsonl');
    const text = fs.readFileSync(steps, 'utf8');
    fs.writeFileSync(steps, text.slice(0, text.length - 40)); // a crash mid-write: half a line, no newline
    const { stdout, stderr } = await bench(['report', dir, '--volume', '5000/day', '--price-as', 'gpt-4o-mini,gpt-4o']);
    expect(stderr).toContain('skipped 1 incomplete line(s) of steps.jsonl');
    expect(stdout).toContain('seed-shaped steps=30');
    expect(stdout).toMatch(/At 5,000 runs a day/);
    const reprice = fs.readFileSync(path.join(dir, 'repricing.csv'), 'utf8');
    expect(reprice).toMatch(/^config_id,scenario,price_model,prompt_cache,cost_usd_mean/);
    expect(reprice).toContain(',gpt-4o,on_estimated,');
    expect(fs.readFileSync(path.join(dir, 'report.html'), 'utf8')).toContain(
      '1 incomplete record line(s) were skipped',
    );
  });

  it('says so when meta.json is there but damaged, naming the file and field, and still reports from the records', async () => {
    const dir = path.join(tmp, 'bad-meta');
    writeResults(dir, sampleSweep([10, 30], 2));
    const quiet = await bench(['report', dir, '--quiet']);
    expect(quiet.stderr).not.toContain('meta.json'); // no meta.json at all: nothing to say
    // A real sweep's meta.json with one field damaged by hand.
    const meta = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../results/reference/meta.json'), 'utf8'));
    fs.writeFileSync(path.join(dir, 'meta.json'), JSON.stringify({ ...meta, scenarios: 'seed-shaped' }));
    const { stdout, stderr } = await bench(['report', dir]);
    expect(stderr).toMatch(/meta\.json: scenarios: [^\n]* — the reports were built from the records alone/);
    expect(stdout).toContain('seed-shaped steps=30');
  });

  it('refuses bad --volume and unknown --price-as models with one line and exit code 2', async () => {
    const dir = path.join(tmp, 'bad');
    writeResults(dir, sampleSweep([10], 1));
    const cases = [
      [['--volume', 'lots'], "--volume: 'lots' is not a positive number of runs"],
      [['--price-as', 'gpt-9'], "no price for model 'gpt-9'"],
      [['--pricing', 'x.yaml'], '--pricing: only used with --price-model or --price-as'],
      [['--price-in', '1'], '--price-in and --price-out go together'],
      [['--price-cached', '1'], '--price-cached: only used with --price-in and --price-out'],
      [['--price-model', 'gpt-9'], "no price for model 'gpt-9'"],
      [['--what-if', 'steps'], "--what-if: 'steps' is not LIMIT=VALUES, like steps=5..30:5"],
      [
        ['--what-if', 'rounds=3'],
        "--what-if: 'rounds' is not a limit a what-if can derive (accepted: steps, tokens, cost, timeout, repeat, calls)",
      ],
      [['--what-if', 'steps=0'], '--what-if steps: 0 is below the minimum 1'],
    ] as const;
    // One after another: the in-process CLI captures one command's output at a time.
    const results: Array<{ code: number; stderr: string } | null> = [];
    for (const [args] of cases)
      results.push(
        await bench(['report', dir, ...args]).then(
          () => null,
          (e: { code: number; stderr: string }) => e,
        ),
      );
    cases.forEach(([, msg], i) => {
      const err = results[i];
      expect(err?.code).toBe(2);
      expect(err?.stderr).toContain(msg);
      expect(err?.stderr.trim().split('\n')).toHaveLength(1);
    });
  });
});
