// `bench check` with adaptive repeats, through the real CLI: batches until decided, the reason in
// the output, JUnit and summary.md, deterministic for a seed, the spend cap, --from, and --shard refused.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { QUICK_SUM, tempDir, writeBudgets } from './gate-helpers.ts';
import { patient } from './helpers/patient.ts';

const BIN = path.resolve(import.meta.dirname, '../bin/bench.js');
const dir = tempDir('loopbench-adaptive-');
// Budgets files read scenario files from their own directory tree only: the fixture goes next to them.
fs.copyFileSync(QUICK_SUM, path.join(dir, 'quick-sum.yaml'));

function bench(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GITHUB_')));
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env, cwd: dir }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}

// Both scenarios are far inside their budgets (decided at the first look); autogpt's p95 cannot be
// shown to hold within 20 runs (that needs 59 at least), so with it autogpt runs to max and fails.
const budgets = (name: string, quickMaxSteps: number, autogpt = 'total_tokens: { mean: 20000 }') =>
  writeBudgets(
    dir,
    `repeats: { min: 5, max: 20, batch: 5 }
limits: { steps: 12, max_cost: 0.01 }
scenarios:
  - scenario: quick-sum.yaml
    assertions:
      stop_reason: [done]
      steps: { max: ${quickMaxSteps} }
      input_tokens: { mean: 40000 }
  - scenario: autogpt-recursive-verification
    assertions:
      stop_reason: [spin]
      ${autogpt}
`,
    name,
  );

const runIds = (out: string) =>
  fs
    .readFileSync(path.join(out, 'runs.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l).run_id as string)
    .sort();

describe('bench check with adaptive repeats', () => {
  const pass = budgets('pass.yaml', 8);

  it(
    'stops each scenario once decided, says why in the output, JUnit and summary.md, and repeats itself for a seed',
    async () => {
      const [a, b] = await Promise.all([
        bench(['check', pass, '-q', '-o', path.join(dir, 'a')]),
        bench(['check', pass, '-q', '-o', path.join(dir, 'b')]),
      ]);
      expect(a.stderr).toBe('');
      expect(a.code).toBe(0);
      expect(a.stdout).toMatch(
        /^RUNS {2}quick-sum {2,}decided after 5 runs: input_tokens mean ≤ 40,000 holds at 95 %$/m,
      );
      expect(a.stdout).toMatch(
        /^RUNS {2}autogpt-recursive-verification {2}decided after 5 runs: total_tokens mean ≤ 20,000 holds at 95 %$/m,
      );
      expect(a.stdout).toContain('bench check: all 5 budgets hold');

      const ids = runIds(path.join(dir, 'a'));
      expect(ids.filter((id) => id.startsWith('quick-sum'))).toHaveLength(5);
      expect(ids.filter((id) => id.startsWith('autogpt'))).toHaveLength(5);
      expect(runIds(path.join(dir, 'b'))).toEqual(ids);
      const meta = JSON.parse(fs.readFileSync(path.join(dir, 'a', 'meta.json'), 'utf8'));
      expect(meta).toMatchObject({
        status: 'complete',
        repeat: 20,
        runs_planned: 10,
        runs_done: 10,
        adaptive: { min: 5, max: 20, batch: 5, confidence: 0.95 },
      });

      const junit = fs.readFileSync(path.join(dir, 'a', 'junit.xml'), 'utf8');
      expect(junit).toMatch(
        /<testsuite name="quick-sum"[^>]*>\n {4}<properties>\n {6}<property name="runs" value="5"\/>\n {6}<property name="sampling" value="decided after 5 runs: input_tokens mean ≤ 40,000 holds at 95 %"\/>/,
      );
      expect(junit).toContain(
        '<property name="design" value="5..20 runs by 5 · 4 looks · each budget a one-sided test at 95 %, α = 5 % spent over the looks as α·ln(1 + (e − 1)·n/20) (Lan–DeMets, Pocock-type): exact binomial boundaries for success rates and quantiles, a Student t bound for means"/>',
      );
      const md = fs.readFileSync(path.join(dir, 'a', 'summary.md'), 'utf8');
      expect(md).toContain(
        'Adaptive repeats: 5..20 runs by 5 · 4 looks · each budget a one-sided test at 95 %, α = 5 % spent over the looks as α·ln(1 + (e − 1)·n/20) (Lan–DeMets, Pocock-type)',
      );
      expect(md).toContain('- quick-sum: decided after 5 runs: input_tokens mean ≤ 40,000 holds at 95 %');

      // --from replays the looks over the records and says the same.
      const [judged, resumed] = await Promise.all([
        bench(['check', pass, '--from', path.join(dir, 'a')]),
        bench(['--resume', path.join(dir, 'a'), '-q']),
      ]);
      expect(resumed.code).toBe(2);
      expect(resumed.stderr.trim()).toMatch(
        /^bench: .*: made by bench check with adaptive repeats, which cannot be resumed: run the check again/,
      );
      expect(judged.code).toBe(0);
      expect(judged.stdout.split('\n').filter((l) => l.startsWith('RUNS'))).toEqual(
        a.stdout.split('\n').filter((l) => l.startsWith('RUNS')),
      );
    },
    patient(120_000),
  );

  it(
    'examples/budgets-adaptive.yaml holds on the sim with 50 runs (fixed: 80); near their bars, scenarios take the runs the README states',
    async () => {
      const example = path.resolve(import.meta.dirname, '../examples/budgets-adaptive.yaml');
      const nearBar = path.resolve(import.meta.dirname, 'fixtures/budgets-near-bar.yaml');
      const [r, near] = await Promise.all([
        bench(['check', example, '-q', '-o', path.join(dir, 'example')]),
        bench(['check', nearBar, '-q', '-o', path.join(dir, 'near-bar')]),
      ]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('bench check: all 8 budgets hold');
      expect(r.stdout).toMatch(
        /^RUNS {2}tiny-agent-sum-of-squares {7}decided after 40 runs: success_rate ≥ 0\.9, input_tokens mean ≤ 40,000, cost_usd mean ≤ \$0\.0020 hold at 95 %$/m,
      );
      expect(r.stdout).toMatch(
        /^RUNS {2}autogpt-recursive-verification {2}decided after 10 runs: total_tokens mean ≤ 20,000 holds at 95 %$/m,
      );
      expect(r.stdout).toMatch(
        /^PASS {2}tiny-agent-sum-of-squares {7}input_tokens mean ≤ 40,000 {2}1,009\.2 \(held at 95 % after 10 runs\)/m,
      );

      expect(near.code).toBe(1);
      expect(near.stdout.split('\n').filter((l) => /^(RUNS|FAIL)/.test(l))).toEqual([
        'FAIL  reflection-reopens         success_rate ≥ 0.8         83/100 (undecided at 95 % after 100 runs)  (limit ≥ 0.8)',
        'RUNS  reflection-reopens         ran to max 100 runs: success_rate ≥ 0.8 undecided at 95 %',
        'RUNS  reflection-bar-0-7         decided after 80 runs: success_rate ≥ 0.7 holds at 95 %',
        'RUNS  tiny-agent-sum-of-squares  decided after 20 runs: input_tokens mean ≤ 1,100 holds at 95 %',
      ]);
    },
    patient(240_000),
  );

  it(
    'decides a breach at the first look, caps spend across batches, and refuses --shard',
    async () => {
      const breach = budgets('breach.yaml', 2);
      const p95 = budgets('p95.yaml', 8, 'total_tokens: { p95: 20000 }');
      const [failed, undecided, capped, sharded] = await Promise.all([
        bench(['check', breach, '-q', '-o', path.join(dir, 'breach')]),
        bench(['check', p95, '-q', '-o', path.join(dir, 'p95')]),
        // Each run reserves its $0.01 worst case; autogpt runs spend ~$0.002 each, so the cap stops a later batch.
        bench(['check', p95, '-q', '-o', path.join(dir, 'capped'), '--ci-max-spend', '0.02', '-j', '1']),
        bench(['check', pass, '--shard', '1/2', '-o', path.join(dir, 'shard')]),
      ]);
      expect(failed.code).toBe(1);
      expect(failed.stdout).toMatch(/^RUNS {2}quick-sum {2,}decided after 5 runs: steps max ≤ 2 breached by a run$/m);
      expect(runIds(path.join(dir, 'breach')).filter((id) => id.startsWith('quick-sum'))).toHaveLength(5);

      // Undecided at max is not shown to hold: the budget fails, and says why it could not be decided.
      expect(undecided.code).toBe(1);
      expect(undecided.stdout).toMatch(
        /^RUNS {2}autogpt-recursive-verification {2}ran to max 20 runs: total_tokens p95 ≤ 20,000 undecided at 95 % \(total_tokens p95 ≤ 20,000 cannot be shown to hold within 20 runs\)$/m,
      );
      expect(undecided.stdout).toMatch(
        /^FAIL {2}autogpt-recursive-verification {2}total_tokens p95 ≤ 20,000 +[\d,.]+ \(undecided at 95 % after 20 runs\)/m,
      );
      // Said apart from a breach: nothing was shown to breach either.
      expect(undecided.stdout).toContain('bench check: 1 of 5 not shown to hold (undecided at the most runs)');
      // And it was said before the runs were paid for.
      expect(undecided.stderr).toMatch(
        /^bench: warning: .*p95\.yaml: autogpt-recursive-verification: total_tokens p95 ≤ 20,000 cannot be shown to hold within 20 runs at 95 %, even if every run meets it \(it will fail; raise repeats.max or bound the mean\)$/m,
      );
      expect(failed.stderr).not.toContain('warning');

      expect(capped.code).toBe(1);
      expect(capped.stderr).toMatch(/^bench: spend cap \$0\.020? reached: /m);
      const spent = JSON.parse(fs.readFileSync(path.join(dir, 'capped', 'meta.json'), 'utf8'));
      expect(spent.status).toBe('capped');
      expect(spent.spend.spent_usd).toBeLessThanOrEqual(0.02);
      expect(capped.stdout).toMatch(
        /^RUNS {2}autogpt-recursive-verification {2}stopped short after \d+ runs, before the look at \d+: undecided$/m,
      );

      expect(sharded.code).toBe(2);
      expect(sharded.stderr.trim().split('\n')).toHaveLength(1);
      expect(sharded.stderr).toMatch(
        /^bench: --shard: .*pass\.yaml has adaptive repeats, which decide after each batch on all of a scenario's runs so far; a shard holds every n-th run only/,
      );
      expect(fs.existsSync(path.join(dir, 'shard'))).toBe(false);
    },
    patient(120_000),
  );
});
