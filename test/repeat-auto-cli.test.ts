// `bench run --repeat auto` through the real CLI: each configuration in batches until precise enough or
// max, why it stopped in the terminal, summary.md and meta.json, the same run counts for a seed, the
// spend cap across batches, `bench report` replaying the rule, and --resume refused.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bench } from './helpers/cli.ts';
import { patient } from './helpers/patient.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-repeat-auto-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const out = (name: string) => path.join(tmp, name);
const runsOf = (dir: string) =>
  fs
    .readFileSync(path.join(dir, 'runs.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { run_id: string; config_id: string });
const counts = (dir: string) => {
  const by: Record<string, number> = {};
  for (const r of runsOf(dir)) by[r.config_id] = (by[r.config_id] ?? 0) + 1;
  return by;
};
const runsLines = (stdout: string) => stdout.split('\n').filter((l) => l.startsWith('RUNS  '));

// seed-calibrated barely varies (decided at the first look); tiny-agent's cost varies by ~19 % a run and
// 30/30 successes are ±5.7 points, so it runs to max.
const SWEEP = [
  '-s',
  'seed-calibrated,tiny-agent-sum-of-squares',
  '--steps',
  '12',
  '--repeat',
  'auto:5..30:5',
  '-q',
  '--no-transcripts',
];

describe('bench run --repeat auto', { timeout: patient(240_000) }, () => {
  it('stops each configuration when precise enough or at max, says why, and takes the same runs for a seed', async () => {
    const [a, b] = await Promise.all([bench([...SWEEP, '-o', out('a')]), bench([...SWEEP, '-o', out('b'), '-j', '1'])]);
    expect(a.stderr).toBe('');
    expect(a.code).toBe(0);
    expect(runsLines(a.stdout)).toEqual([
      expect.stringMatching(/^RUNS {2}seed-calibrated steps=12 {12}decided after 5 runs: mean cost ±0\.\d % at 95 %$/),
      expect.stringMatching(
        /^RUNS {2}tiny-agent-sum-of-squares steps=12 {2}ran to max 30 runs: mean cost ±\d+\.\d %, success rate ±5\.7 points at 95 % \(target ±5\.0 % and ±5\.0 points\)$/,
      ),
    ]);
    expect(counts(out('a'))).toEqual({ 'seed-calibrated steps=12': 5, 'tiny-agent-sum-of-squares steps=12': 30 });
    // Another concurrency finishes runs in another order: the same runs, the same reasons.
    expect(
      runsOf(out('b'))
        .map((r) => r.run_id)
        .sort(),
    ).toEqual(
      runsOf(out('a'))
        .map((r) => r.run_id)
        .sort(),
    );
    expect(runsLines(b.stdout)).toEqual(runsLines(a.stdout));

    const meta = JSON.parse(fs.readFileSync(path.join(out('a'), 'meta.json'), 'utf8'));
    expect(meta).toMatchObject({
      status: 'complete',
      repeat: 30,
      runs_planned: 35,
      runs_done: 35,
      adaptive: { min: 5, max: 30, batch: 5, confidence: 0.95, rule: 'precision', precision: 0.05 },
    });

    const md = fs.readFileSync(path.join(out('a'), 'summary.md'), 'utf8');
    expect(md).toContain(
      "Adaptive repeats (`--repeat auto`): 5..30 runs by 5; each configuration stops once its mean cost's 95 % interval (Student t) is within ±5.0 % of the mean and, where the answer is checked, the success rate's (Wilson) within ±5.0 points, or at max.",
    );
    for (const line of runsLines(a.stdout)) {
      const [, config, reason] = /^RUNS {2}(.+?) {2,}(.+)$/.exec(line)!;
      expect(md).toContain(`- ${config}: ${reason}`);
    }
    expect(fs.readFileSync(path.join(out('a'), 'report.html'), 'utf8')).toContain(
      '35 of 35 planned (complete), 5..30 (adaptive) per configuration',
    );

    // The reports replay the rule over the records: bench report says the same; --resume is refused.
    const [report, resumed] = await Promise.all([bench(['report', out('a')]), bench(['--resume', out('a'), '-q'])]);
    expect(report.code).toBe(0);
    expect(runsLines(report.stdout)).toEqual(runsLines(a.stdout));
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toBe(
      `bench: ${out('a')}: made by bench run --repeat auto, whose batches depended on the runs before them, so it cannot be resumed: run the sweep again (the same seed takes the same runs)\n`,
    );
  });

  it('a looser --precision stops sooner; --ci-max-spend caps the batches and the cut-short configuration says so', async () => {
    const [loose, capped] = await Promise.all([
      bench([...SWEEP, '--precision', '10%', '-o', out('loose')]),
      // Each run reserves its $0.01 worst case and spends ~$0.0003: seven runs fit under $0.012.
      bench([
        '-s',
        'tiny-agent-sum-of-squares',
        '--repeat',
        'auto:5..30:5',
        '--max-cost',
        '0.01',
        '--ci-max-spend',
        '0.012',
        '-j',
        '1',
        '-q',
        '--no-transcripts',
        '-o',
        out('capped'),
      ]),
    ]);
    expect(loose.code).toBe(0);
    expect(counts(out('loose'))['tiny-agent-sum-of-squares steps=12']).toBeLessThan(30);
    expect(runsLines(loose.stdout)[1]).toMatch(
      /^RUNS {2}tiny-agent-sum-of-squares steps=12 {2}decided after \d+ runs: mean cost ±\d\.\d %, success rate ±\d\.\d points at 95 %$/,
    );

    expect(capped.code).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(out('capped'), 'meta.json'), 'utf8')).status).toBe('capped');
    const taken = counts(out('capped'))['tiny-agent-sum-of-squares steps=12']!;
    expect(taken).toBeGreaterThan(5);
    expect(taken).toBeLessThan(10);
    expect(runsLines(capped.stdout)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^RUNS {2}tiny-agent-sum-of-squares steps=12 {2}stopped short after ${taken} runs, before the look at 10: mean cost ±`,
        ),
      ),
    ]);
    // The cap counts the runs scheduled (two batches), and the way on is to run again: no --resume.
    expect(capped.stderr).toBe(
      'bench: spend: at most $0.012 — 30 run(s) planned, up to $0.30 at their --max-cost, capped by --ci-max-spend $0.012 (simulated model: nothing is billed; these are what a real model would bill)\n' +
        `bench: spend cap $0.012 reached: ${10 - taken} of 10 run(s) not started ($${/\(\$([\d.]+) spent\)/.exec(capped.stderr)?.[1]} spent)\nbench: --repeat auto cannot be resumed: run the sweep again under a higher --ci-max-spend (the same seed takes the same runs)\n`,
    );
  });
});
