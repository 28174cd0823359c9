// `bench check`, `bench merge` and their flags through the real CLI, as CI runs them.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { once, QUICK_SUM, tempDir, writeBudgets } from './gate-helpers.ts';
import { patient } from './helpers/patient.ts';

const BIN = path.resolve(import.meta.dirname, '../bin/bench.js');
const dir = tempDir('loopbench-gate-cli-');
// The scenario file sits next to the budgets files, as a check reads only files inside that tree.
fs.copyFileSync(QUICK_SUM, path.join(dir, 'quick-sum.yaml'));

interface Exit {
  code: number;
  stdout: string;
  stderr: string;
}

function bench(args: string[], env: Record<string, string> = {}): Promise<Exit> {
  // A clean environment: no GitHub variables leak in from a CI runner unless a test sets them.
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GITHUB_')));
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...base, ...env }, cwd: dir }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}

const budgets = (name: string, quickSteps: number) =>
  writeBudgets(
    dir,
    `repeats: 3
limits: { steps: 12, max_cost: 0.01 }
max_regression: { cost: 10% }
scenarios:
  - scenario: ./quick-sum.yaml
    assertions:
      stop_reason: [done]
      steps: { max: ${quickSteps} }
      cost_usd: { p95: 0.002 }
  - scenario: autogpt-recursive-verification
    assertions:
      stop_reason: [spin]
      total_tokens: { mean: 20000 }
`,
    name,
  );

describe('bench check through the CLI', () => {
  const pass = budgets('pass.yaml', 8);
  const fail = budgets('fail.yaml', 2);

  it(
    'exits 0 when every budget holds, 1 when one is breached, 2 on a malformed file',
    async () => {
      const summaryFile = path.join(dir, 'step-summary.md');
      fs.writeFileSync(summaryFile, '# earlier step\n');
      const gh = { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summaryFile };
      const malformed = writeBudgets(
        dir,
        'repeats: three\nscenarios:\n  - scenario: perfectionist\n    assertions: {}\n',
        'bad.yaml',
      );
      const [ok, breached, bad] = await Promise.all([
        bench(['check', pass, '-q', '-o', path.join(dir, 'pass')], gh),
        bench(['check', fail, '-q', '-o', path.join(dir, 'fail')], gh),
        bench(['check', malformed, '-q', '-o', path.join(dir, 'bad')]),
      ]);

      expect(ok.stderr).toBe('');
      expect(ok.code).toBe(0);
      expect(ok.stdout.split('\n').filter((l) => /^(PASS|FAIL) /.test(l))).toHaveLength(5);
      expect(ok.stdout).toMatch(/^PASS {2}quick-sum {7,}steps max ≤ 8 {2,}[34] {2}\(limit ≤ 8\)$/m);
      expect(ok.stdout).toContain('bench check: all 5 budgets hold');
      expect(ok.stdout).not.toContain('::error');
      for (const f of ['junit.xml', 'summary.md', 'baseline.json', 'runs.jsonl', 'summary.csv', 'meta.json'])
        expect(fs.existsSync(path.join(dir, 'pass', f))).toBe(true);

      expect(breached.code).toBe(1);
      expect(breached.stdout).toMatch(/^FAIL {2}quick-sum {7,}steps max ≤ 2 {2,}[34] {2}\(limit ≤ 2\)$/m);
      expect(breached.stdout).toContain('bench check: 1 of 5 budgets breached');
      expect(breached.stdout).toMatch(
        /^::error file=.*fail\.yaml,title=budget breached%3A quick-sum::quick-sum: steps max ≤ 2 breached: measured [34] over 3 run\(s\)$/m,
      );
      expect(fs.readFileSync(path.join(dir, 'fail', 'junit.xml'), 'utf8')).toMatch(
        /<testcase classname="bench.quick-sum" name="steps max ≤ 2">\n\s+<failure type="budget"/,
      );
      // report.html, the artifact CI uploads, opens with the verdict and every budget's result, before the report's own sections.
      const html = fs.readFileSync(path.join(dir, 'fail', 'report.html'), 'utf8');
      const first = html.indexOf('<section');
      expect(html.slice(first, first + 200)).toMatch(
        /^<section id="check"[^>]*><h2>bench check FAIL: 1 of 5 budgets breached<\/h2>/,
      );
      expect(html.slice(first)).toMatch(
        /<tr class="breached"><td>breached<\/td><td>quick-sum<\/td><td>steps max ≤ 2<\/td><td>[34]<\/td><td>≤ 2<\/td><\/tr>/,
      );
      expect(html.match(/<td>(holds|breached)<\/td>/g)).toHaveLength(5);
      expect(fs.readFileSync(path.join(dir, 'pass', 'report.html'), 'utf8')).toContain(
        '<h2>bench check PASS: all 5 budgets hold</h2>',
      );

      // Both checks appended their summary to the one step summary, after what was there.
      const steps = fs.readFileSync(summaryFile, 'utf8');
      expect(steps.startsWith('# earlier step\n')).toBe(true);
      expect(steps).toContain('## ✅ bench check: all 5 budgets hold');
      expect(steps).toContain('## ❌ bench check: 1 of 5 budgets breached');
      expect(steps).toContain('| ❌ | quick-sum | steps max ≤ 2 |');

      expect(bad.code).toBe(2);
      expect(bad.stdout).toBe('');
      expect(bad.stderr.trim().split('\n')).toEqual([
        `bench: ${malformed}: repeats: a whole number of runs, or { min, max, batch } for adaptive repeats`,
      ]);
      expect(fs.existsSync(path.join(dir, 'bad'))).toBe(false);
    },
    patient(120_000),
  );

  it(
    'fails against a baseline the new prompt regresses from, and stops at the spend cap saying so',
    async () => {
      const longer = writeBudgets(
        dir,
        fs
          .readFileSync(pass, 'utf8')
          .replace(
            `    assertions:\n      stop_reason: [done]`,
            `    system: "${'Explain every step in detail before you take it, then take it. '.repeat(10)}"\n    assertions:\n      stop_reason: [done]`,
          ),
        'longer.yaml',
      );
      const [regressed, capped] = await Promise.all([
        bench([
          'check',
          longer,
          '-q',
          '-o',
          path.join(dir, 'longer'),
          '--baseline',
          path.join(dir, 'pass', 'baseline.json'),
        ]),
        bench(['check', pass, '-q', '-o', path.join(dir, 'capped'), '--ci-max-spend', '0.012', '-j', '1']),
      ]);
      expect(regressed.code).toBe(1);
      expect(regressed.stdout).toMatch(
        /^FAIL {2}quick-sum {7,}baseline: cost per task {2,}\$[\d.]+ → \$[\d.]+ \(\+\d+%\) {2}\(limit ≤ \+10%\)$/m,
      );
      expect(regressed.stdout).toMatch(
        /^PASS {2}autogpt-recursive-verification {2}baseline: cost per task {2,}\$[\d.]+ → \$[\d.]+ \(\+0%\)/m,
      );
      // A change with no max_regression limit is shown, never as a PASS, and is not counted among the budgets.
      expect(regressed.stdout).toMatch(
        /^INFO {2}quick-sum {7,}baseline: tokens per task {2,}[\d,]+ → [\d,]+ \(\+\d+%\) {2}\(limit none: max_regression\.tokens not set\)$/m,
      );
      expect(regressed.stdout).not.toMatch(/^PASS .*baseline: tokens per task/m);
      const budgets = regressed.stdout.split('\n').filter((l) => /^(PASS|FAIL) /.test(l)).length;
      expect(regressed.stdout).toMatch(new RegExp(`bench check: \\d+ of ${budgets} budgets breached`));

      expect(capped.code).toBe(1);
      expect(capped.stderr).toMatch(
        /^bench: spend cap \$0\.012 reached: \d of 6 run\(s\) not started \(\$[\d.]+ spent\)$/m,
      );
      expect(capped.stdout).toMatch(/^FAIL {2}gate .*ci spend ≤ \$0\.012 .*run\(s\) not started/m);
    },
    patient(120_000),
  );

  it(
    "a spend cap below one run's max_cost: nothing measured (exit 3, MISS), not a breach",
    async () => {
      const r = await bench(['check', pass, '-q', '-o', path.join(dir, 'below-one-run'), '--ci-max-spend', '0.005']);
      expect(r.code).toBe(3);
      expect(r.stdout).not.toMatch(/^FAIL/m);
      expect(r.stdout).toMatch(/^MISS {2}quick-sum .*spend cap: runs started {2}no run started/m);
      expect(r.stdout).toMatch(/^MISS {2}gate .*ci spend ≤ \$0\.0050? +no run started, \$0 spent/m);
      expect(r.stdout).toContain('bench check: 2 scenario(s) not measured (spend cap); no budget judged');
      const junit = fs.readFileSync(path.join(dir, 'below-one-run', 'junit.xml'), 'utf8');
      expect(junit).toMatch(/failures="0" errors="3"/);
      expect(junit).toContain('type="spend-cap"');
    },
    patient(60_000),
  );

  const shards = [1, 2].map((i) => path.join(dir, `shard-${i}`));
  const shardRuns = once(() =>
    Promise.all(shards.map((out, i) => bench(['check', pass, '-q', '-o', out, '--shard', `${i + 1}/2`]))),
  );

  it(
    'runs shards, merges them (with the report), and judges the merged results with --from',
    async () => {
      const runs = await shardRuns();
      for (const r of runs) {
        expect(r.code).toBe(0);
        expect(r.stdout).toMatch(/^shard \d\/2: 3 of 6 runs written to /m);
      }
      const merged = path.join(dir, 'merged');
      const m = await bench(['merge', ...shards, '-o', merged]);
      expect(m.stderr).toBe('');
      expect(m.stdout).toContain('merged 2 shards, 6 runs');
      expect(m.stdout).toMatch(/quick-sum steps=12 +3 +3\/3 /);
      const judged = await bench(['check', pass, '--from', merged]);
      expect(judged.code).toBe(0);
      expect(judged.stdout).toContain('bench check: all 5 budgets hold');
    },
    patient(180_000),
  );

  it(
    'refuses bad flag values (exit 2, one line)',
    async () => {
      await shardRuns(); // the half merge below needs shard 1/2 on disk
      const cases: Array<[string[], RegExp]> = [
        [['check', pass, '--shard', '3/2'], /^bench: --shard: '3\/2' is not a shard i\/n/],
        [['--shard', '0/3', '-q'], /^bench: --shard: '0\/3' is not a shard i\/n/],
        [['check', pass, '--ci-max-spend', '-1'], /^bench: --ci-max-spend: -1 is below the minimum 0/],
        [['--ci-max-spend', '1', '--max-cost', 'off', '-q'], /^bench: --ci-max-spend needs a per-run --max-cost/],
        [['check', pass, '--from', path.join(dir, 'pass'), '--shard', '1/2'], /^bench: --from judges finished results/],
        [
          ['check', pass, '--baseline', path.join(dir, 'nothing.json')],
          /^bench: --baseline .*nothing\.json: not a results directory or a baseline JSON file \(ENOENT\)$/,
        ],
        [
          ['merge', path.join(dir, 'shard-1'), '-o', path.join(dir, 'half')],
          /^bench: missing shard\(s\) 2\/2: a merge needs all 2$/,
        ],
      ];
      // A few at a time: each is a whole CLI start on a machine other test runs share.
      const results: Exit[] = [];
      for (let i = 0; i < cases.length; i += 4)
        results.push(...(await Promise.all(cases.slice(i, i + 4).map(([args]) => bench(args)))));
      results.forEach((r, i) => {
        expect(r.code, cases[i]![0].join(' ')).toBe(2);
        expect(r.stderr.trim().split('\n'), cases[i]![0].join(' ')).toHaveLength(1);
        expect(r.stderr.trim(), cases[i]![0].join(' ')).toMatch(cases[i]![1]);
      });
    },
    patient(240_000),
  );
});
