// `bench diff A B` and `bench check --baseline` on real simulated sweeps, through the CLI: the
// comparison per configuration, and the refusal (exit 2, naming the difference) of sweeps or
// baselines made under settings the user did not say may differ.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIFFERENCE_KINDS, settingsOf, sweepDifferences } from '../src/report/data/sweep-settings.ts';
import { LIMITS } from '../src/contracts/limits.ts';
import { benchInProcess } from './helpers/cli.ts';
import { QUICK_SUM } from './gate-helpers.ts';
import { loadRuns } from '../src/report/data/load-runs.ts';
import { costPerSuccess } from '../src/report/stats/cost-per-success.ts';
import { diffSweeps } from '../src/report/diff/diff.ts';
import { diffCsvRows, diffText } from '../src/report/diff/format.ts';
import { synthRun } from './helpers/records.ts';

let tmp: string;
const dir = (name: string) => path.join(tmp, name);
const sweep = async (name: string, args: string[]) => {
  const r = await benchInProcess([...args, '--out', dir(name), '-q', '--no-transcripts']);
  expect(r.code, r.stderr).toBe(0);
};

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-diff-'));
  // The tiny agent's task (its tool scripted, so no Python runs) with a longer system prompt: the same id, another prompt.
  const original = fs.readFileSync(QUICK_SUM, 'utf8');
  const longer = original.replace(
    /^system: \|\n/m,
    `system: |\n  ${'Before every step, restate the goal and say what you are about to do and why. '.repeat(40)}\n`,
  );
  expect(longer).not.toBe(original);
  fs.mkdirSync(dir('prompts'));
  const longerFile = path.join(dir('prompts'), 'quick-sum.yaml');
  fs.writeFileSync(longerFile, longer);
  const base = ['--scenario', `${QUICK_SUM},seed-calibrated`, '--steps', '4,12', '-n', '4'];
  await sweep('seed1', base);
  // Another prompt and another seed.
  await sweep('prompt', ['--scenario', `${longerFile},seed-calibrated`, '--steps', '4,12', '-n', '4', '--seed', '2']);
  await sweep('other', ['--scenario', `${QUICK_SUM},seed-calibrated`, '--steps', '4,30', '-n', '3']);
}, 120_000);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('bench diff', () => {
  it('compares two sweeps per configuration, with Welch and Newcombe intervals, as a table, Markdown and CSV', async () => {
    const md = dir('diff.md');
    const csv = dir('diff.csv');
    const r = await benchInProcess([
      'diff',
      dir('seed1'),
      dir('prompt'),
      '--allow',
      'prompt,seed',
      '--md',
      md,
      '--csv',
      csv,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      'They differ (allowed) in: scenario quick-sum: its prompt, tools or check differ; seed 1 vs 2',
    );
    expect(r.stdout).toContain('4 configurations in both.');
    // The longer prompt: more tokens, clearly (the interval excludes 0).
    expect(r.stdout).toMatch(
      /^quick-sum steps=4 +cost per run \(USD\) +\$[\d.]+ +\$[\d.]+ +\+\d+\.\d% +\[\+\$[\d.]+, \+\$[\d.]+\] +B higher$/m,
    );
    expect(r.stdout).toMatch(
      /^ +tokens per run \(input \+ output\) +[\d,]+ +[\d,]+ +\+\d+\.\d% +\[\+[\d,]+, \+[\d,]+\] +B higher$/m,
    );
    expect(r.stdout).toMatch(
      /^ +success rate +4\/4 \(100%\) +4\/4 \(100%\) +±0 pts +\[−\d+ pts, \+\d+ pts\] +no clear change$/m,
    );
    // seed-calibrated (same prompt, another seed) never finishes early: its steps are the limit in both, exactly.
    expect(r.stdout).toMatch(/^ +steps per run +12\.0 +12\.0 +±0 +\[±0, ±0\] +same$/m);
    expect(r.stdout).toMatch(/^seed-calibrated steps=12 +cost per run \(USD\) .* no clear change$/m);
    expect(r.stdout).toContain(
      "Welch's t interval for the means (cost, tokens, steps), Newcombe's hybrid score interval for the success rate",
    );

    // No field of this CSV holds a comma or a quote: a split reads it.
    const [head, ...lines] = fs
      .readFileSync(csv, 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(','));
    expect(head).toEqual([
      'scenario',
      'config_id',
      'metric',
      'runs_a',
      'runs_b',
      'a',
      'b',
      'change',
      'relative_change',
      'ci95_lo',
      'ci95_hi',
      'a_ci95_lo',
      'a_ci95_hi',
      'b_ci95_lo',
      'b_ci95_hi',
      'interval',
      'reading',
    ]);
    const rows = lines.map((l) => Object.fromEntries(head!.map((h, i) => [h, l[i]!])));
    // Three metrics per configuration, and success and cost per success where the scenario checks its answer (quick-sum).
    expect(rows).toHaveLength(4 * 3 + 2 * 2);
    const cost = rows.find((x) => x.config_id === 'seed-calibrated steps=12' && x.metric === 'cost')!;
    expect(cost).toMatchObject({ scenario: 'seed-calibrated', runs_a: '4', runs_b: '4', interval: 'Welch' });
    expect(Number(cost.change)).toBeCloseTo(Number(cost.b) - Number(cost.a), 12);
    expect(Number(cost.ci95_lo)).toBeLessThanOrEqual(Number(cost.change));
    expect(rows.find((x) => x.metric === 'success')!.interval).toBe('Newcombe');
    // Cost per success: each side's figure and interval are the report's (costPerSuccess over that sweep's runs,
    // braked by their budget), with no interval of B − A.
    const perSuccess = rows.find((x) => x.config_id === 'quick-sum steps=4' && x.metric === 'cost_per_success')!;
    for (const [side, name] of [
      ['a', 'seed1'],
      ['b', 'prompt'],
    ] as const) {
      const { runs } = await loadRuns(path.join(dir(name), 'runs.jsonl'));
      const mine = runs.filter((x) => x.config_id === 'quick-sum steps=4');
      const want = costPerSuccess(mine, mine[0]!.settings.limits.max_cost_usd)!;
      expect([perSuccess[side], perSuccess[`${side}_ci95_lo`], perSuccess[`${side}_ci95_hi`]].map(Number)).toEqual([
        want.value,
        want.ci!.lo,
        want.ci!.hi,
      ]);
    }
    expect(perSuccess).toMatchObject({ interval: 'each side', ci95_lo: '', ci95_hi: '', reading: 'intervals overlap' });
    // 4/4 succeeded on each side: the † upper end and its sentence, naming the side.
    expect(r.stdout).toMatch(
      /^ +cost per successful task \(USD\) +\$[\d.]+ \(\$[\d.]+–\$[\d.]+†\) +\$[\d.]+ \(\$[\d.]+–\$[\d.]+†\) +\+\d+\.\d% +– +intervals overlap$/m,
    );
    expect(r.stdout).toMatch(/^† No checked run failed in 4 \(quick-sum steps=4 in A, quick-sum steps=4 in B, /m);

    const text = fs.readFileSync(md, 'utf8');
    expect(text).toContain('| configuration | metric | A | B | change | 95% interval of B − A | reading |');
    expect(text).toMatch(/^\| seed-calibrated steps=4 \| cost per run \(USD\) \| \$[\d.]+ \| \$[\d.]+ \|/m);
  });

  it('reads cost per success from the two intervals: apart says which is higher, overlapping says nothing', () => {
    // 20 runs a side, 3 of them failing at the step limit; B's calls carry 100× the input.
    const side = (scale: number) =>
      Array.from({ length: 20 }, (_, repeat) => {
        const stepsToDone = repeat < 3 ? 99 : 3 + (repeat % 4);
        return synthRun({
          scenario: 'checked',
          maxSteps: 12,
          repeat,
          input: (n) => scale * (150 + 300 * (n - 1)),
          stepsToDone,
          success: stepsToDone <= 12,
        }).run;
      });
    const cheap = side(1);
    const [apart, same] = [diffSweeps(cheap, side(100)), diffSweeps(cheap, side(1))];
    const row = (d: typeof apart) => diffCsvRows(d).find((x) => x.metric === 'cost_per_success')!;
    const budget = cheap[0]!.settings.limits.max_cost_usd;
    const [a, b] = [costPerSuccess(cheap, budget)!.ci!, costPerSuccess(side(100), budget)!.ci!];
    expect(b.lo).toBeGreaterThan(a.hi);
    expect(row(apart)).toMatchObject({ a_ci95_hi: a.hi, b_ci95_lo: b.lo, reading: 'B higher (intervals apart)' });
    expect(diffSweeps(side(100), cheap).rows.find((x) => x.metric === 'cost_per_success')!.change).toBeLessThan(0);
    expect(row(diffSweeps(side(100), cheap)).reading).toBe('B lower (intervals apart)');
    expect(row(same)).toMatchObject({ change: 0, reading: 'intervals overlap' });
    // Nothing succeeded in B: no cost per success there, no change, no reading.
    const failing = side(1).map((x) => ({ ...x, success: false }));
    expect(row(diffSweeps(cheap, failing))).toMatchObject({
      b: '',
      change: '',
      reading: 'too few runs or successes to tell',
    });
    expect(diffText('A', 'B', diffSweeps(cheap, failing), [])).toMatch(
      /cost per successful task \(USD\) +\$[\d.]+ \(\$[\d.]+–\$[\d.]+\) +none succeeded +– +– +too few/,
    );
  });

  it('refuses a pair that differs in what --allow does not name (exit 2, one line naming each difference)', async () => {
    const r = await benchInProcess(['diff', dir('seed1'), dir('other')]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(
      'are not the same sweep: they differ in max_steps 4,12 vs 4,30; repeats 4 vs 3 (if that is the comparison you mean, add --allow limits,repeats)',
    );

    const prompt = await benchInProcess(['diff', dir('seed1'), dir('prompt'), '--allow', 'seed']);
    expect(prompt.code).toBe(2);
    expect(prompt.stderr).toContain(
      'they differ in scenario quick-sum: its prompt, tools or check differ (if that is the comparison you mean, add --allow prompt)',
    );
  });

  it('names a damaged meta.json as damaged (file and field), not as a missing results directory', async () => {
    fs.cpSync(dir('seed1'), dir('damaged'), { recursive: true });
    const meta = JSON.parse(fs.readFileSync(path.join(dir('damaged'), 'meta.json'), 'utf8'));
    meta.grid.max_steps = ['twelve'];
    fs.writeFileSync(path.join(dir('damaged'), 'meta.json'), JSON.stringify(meta));
    const r = await benchInProcess(['diff', dir('seed1'), dir('damaged')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${path.join(dir('damaged'), 'meta.json')}: grid.max_steps[0]: Invalid input: expected number`,
    );
    expect(r.stderr).not.toContain('not a results directory');
    const check = await benchInProcess([
      'check',
      path.resolve(import.meta.dirname, '../examples/budgets.yaml'),
      '--from',
      dir('damaged'),
    ]);
    expect(check.code).toBe(2);
    expect(check.stderr).toContain(
      `${path.join(dir('damaged'), 'meta.json')}: grid.max_steps[0]: Invalid input: expected number`,
    );
  });

  it('names every brake that differs, loop detectors included (absent is off)', () => {
    const a = settingsOf(JSON.parse(fs.readFileSync(path.join(dir('seed1'), 'meta.json'), 'utf8')));
    expect(sweepDifferences(a, { ...a, grid: { ...a.grid, max_cycle: [3] } })).toEqual([
      { kind: 'limits', text: 'max_cycle off vs 3' },
    ]);
    expect(sweepDifferences(a, { ...a, grid: { ...a.grid, near_duplicate: [null] } })).toEqual([]);
    // Every row of the table of brakes, none listed by hand: a new limit is compared and named in --allow's help.
    for (const { key, flag } of LIMITS) {
      expect(
        sweepDifferences(a, { ...a, grid: { ...a.grid, [key]: [0.37] } }).map((d) => [d.kind, d.text.split(' ')[0]]),
      ).toEqual([['limits', key]]);
      expect(DIFFERENCE_KINDS.limits).toContain(flag);
    }
  });

  it('with the difference allowed, compares the configurations both ran and names the rest', async () => {
    const r = await benchInProcess(['diff', dir('seed1'), dir('other'), '--allow', 'limits,repeats']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      '2 configurations in both; only in A: quick-sum steps=12, seed-calibrated steps=12; only in B: quick-sum steps=30, seed-calibrated steps=30.',
    );
  });

  it('rejects bad input with one line and exit 2', async () => {
    const cases: Array<[string[], string]> = [
      [
        ['diff', dir('seed1'), dir('prompt'), '--allow', 'colour'],
        "--allow: 'colour' is not accepted (accepted: model, prompt, pricing, limits, seed, repeats, scenarios, loop)",
      ],
      [
        ['diff', dir('seed1'), dir('nothing')],
        `B ${dir('nothing')}: not a results directory (no meta.json and runs.jsonl)`,
      ],
      [['diff', dir('seed1'), dir('prompt'), '--allow', 'prompt,seed', '--md', ''], '--md: needs a file name'],
      [
        ['diff', dir('seed1'), dir('prompt'), '--allow', 'prompt,seed', '--csv', dir('no/such.csv')],
        `--csv ${dir('no/such.csv')}: the directory ${dir('no')} does not exist`,
      ],
    ];
    for (const [args, msg] of cases) {
      const r = await benchInProcess(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim()).toBe(`bench: ${msg}`);
    }
  });
});

describe('bench check --baseline', () => {
  const budgets = (repeats: number, steps: number) => `repeats: ${repeats}
limits: { steps: ${steps}, max_cost: 0.01 }
max_regression: { cost: 10% }
scenarios:
  - scenario: ${QUICK_SUM}
    assertions:
      stop_reason: [done]
`;

  it('refuses a baseline made with other limits or repeats, naming the difference, before running anything', async () => {
    fs.writeFileSync(dir('b3.yaml'), budgets(3, 12));
    fs.writeFileSync(dir('b2.yaml'), budgets(2, 8));
    const made = await benchInProcess(['check', dir('b3.yaml'), '-q', '-o', dir('base')]);
    expect(made.code, made.stderr).toBe(0);
    const baseline = JSON.parse(fs.readFileSync(path.join(dir('base'), 'baseline.json'), 'utf8'));
    expect(baseline.settings).toMatchObject({ repeat: 3, scenarios: ['quick-sum'], grid: { max_steps: [12] } });

    for (const ref of [path.join(dir('base'), 'baseline.json'), dir('base')]) {
      const r = await benchInProcess(['check', dir('b2.yaml'), '-q', '-o', dir('mismatch'), '--baseline', ref]);
      expect(r.code).toBe(2);
      expect(r.stderr.trim()).toBe(
        `bench: --baseline ${ref}: made with other settings than this check (baseline vs now): max_steps 12 vs 8; repeats 3 vs 2; re-create the baseline with this budgets file, or add --allow limits,repeats if that comparison is meant`,
      );
      expect(fs.existsSync(dir('mismatch'))).toBe(false);
    }
    // Allowed on purpose, it compares.
    const allowed = await benchInProcess([
      'check',
      dir('b2.yaml'),
      '-q',
      '-o',
      dir('allowed'),
      '--baseline',
      dir('base'),
      '--allow',
      'limits,repeats',
    ]);
    expect(allowed.stdout).toMatch(/baseline: cost per task/);
  });

  it('refuses a baseline.json that does not record its settings', async () => {
    const old = dir('old-baseline.json');
    fs.writeFileSync(
      old,
      JSON.stringify({
        tool: 'loopbench-baseline',
        created_at: 'x',
        scenarios: { 'quick-sum': { runs: 3, tokens_mean: 100, cost_usd_mean: 0.001, success_rate: 1 } },
      }),
    );
    fs.writeFileSync(dir('b1.yaml'), budgets(3, 12));
    const r = await benchInProcess(['check', dir('b1.yaml'), '-q', '-o', dir('unknown'), '--baseline', old]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--baseline ${old}: records no settings it was made with`);
    const stray = await benchInProcess(['check', dir('b1.yaml'), '-q', '-o', dir('stray'), '--allow', 'seed']);
    expect(stray.code).toBe(2);
    expect(stray.stderr.trim()).toBe('bench: --allow: only used with --baseline');
  });
});
