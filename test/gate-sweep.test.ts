import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../src/contracts/errors.ts';
import { baselineOf, compareToBaseline, loadBaseline } from '../src/gate/baseline.ts';
import { errorAnnotations } from '../src/gate/github.ts';
import { judge } from '../src/gate/judge.ts';
import { junitXml } from '../src/gate/junit.ts';
import { checkSummaryMd, verdictLine } from '../src/gate/summary-md.ts';
import { loadBudgets } from '../src/gate/load-budgets.ts';
import { assertSameSweep } from '../src/gate/same-sweep.ts';
import { readJsonl } from '../src/results/jsonl.ts';
import { mergeShards } from '../src/results/merge.ts';
import { readMeta } from '../src/results/meta.ts';
import type { RunRecord, StepRecord } from '../src/contracts/records.ts';
import { parseShard, shardSlice } from '../src/runner/shard.ts';
import { SpendLimiter } from '../src/runner/spend-limiter.ts';
import { once, QUICK_SUM, runBudgets, tempDir, writeBudgets } from './gate-helpers.ts';

const dir = tempDir();
const budgets = (extra = '') =>
  writeBudgets(
    dir,
    `repeats: 4
limits: { steps: 12, max_cost: 0.01 }
max_regression: { cost: 10%, tokens: 10%, success: 5% }
scenarios:
  - scenario: ${QUICK_SUM}
${extra}    assertions: { stop_reason: [done], steps: { max: 8 } }
  - scenario: autogpt-recursive-verification
    assertions: { stop_reason: [spin], steps: { max: 3 } }
`,
    `budgets-${extra ? 'new' : 'old'}.yaml`,
  );

describe('baselines', () => {
  it('detects that a longer prompt costs more per task and fails beyond max_regression', async () => {
    const old = await runBudgets(budgets(), path.join(dir, 'old'));
    const longer = `${'Think carefully about every step, and say what you are about to do before you do it. '.repeat(12)}Use run_python.`;
    const loaded = loadBudgets(budgets(`    system: "${longer}"\n`));
    const now = await runBudgets(loaded.file, path.join(dir, 'new'));
    const baseline = await loadBaseline(path.join(dir, 'old'));
    const verdicts = judge(loaded.checks, now.runs, { baseline });
    const cost = verdicts.find((v) => v.suite === 'quick-sum' && v.name === 'baseline: cost per task')!;
    const before = baseline.scenarios['quick-sum']!.cost_usd_mean;
    const after = baselineOf(now.runs, undefined).scenarios['quick-sum']!.cost_usd_mean;
    const pct = Math.round((after / before - 1) * 100);
    expect(pct).toBeGreaterThan(10);
    expect(cost.pass).toBe(false);
    expect(cost.message).toMatch(
      new RegExp(
        `^quick-sum: the new prompt costs ${pct}% more per task \\(\\$[\\d.]+ → \\$[\\d.]+, allowed \\+10%\\)$`,
      ),
    );
    // The unchanged scenario holds against the same baseline, and success did not move.
    expect(
      verdicts
        .filter((v) => v.suite === 'autogpt-recursive-verification' && v.name.startsWith('baseline'))
        .every((v) => v.pass),
    ).toBe(true);
    expect(verdicts.find((v) => v.suite === 'quick-sum' && v.name === 'baseline: success rate')).toMatchObject({
      pass: true,
      measured: '100% → 100%',
    });
    // An unchanged sweep against itself holds.
    expect(
      judge(loaded.checks, old.runs, { baseline })
        .filter((v) => v.name.startsWith('baseline'))
        .every((v) => v.pass),
    ).toBe(true);
  });

  it('reads a committed baseline.json and rejects a malformed one naming the field', async () => {
    const file = path.join(dir, 'baseline.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        tool: 'loopbench-baseline',
        created_at: 'x',
        scenarios: { a: { runs: 2, tokens_mean: 100, cost_usd_mean: 0.01, success_rate: 1 } },
      }),
    );
    const b = await loadBaseline(file);
    expect(
      compareToBaseline(
        'a',
        b.scenarios.a,
        { runs: 2, tokens_mean: 100, cost_usd_mean: 0.0116, success_rate: 0.8 },
        { cost: 0.1, success: 0.05 },
      ),
    ).toMatchObject([
      {
        name: 'baseline: cost per task',
        pass: false,
        message: 'a: the new prompt costs 16% more per task ($0.010 → $0.012, allowed +10%)',
      },
      { name: 'baseline: tokens per task', pass: true, reportOnly: true, limit: 'none: max_regression.tokens not set' },
      {
        name: 'baseline: success rate',
        pass: false,
        message: 'a: the new prompt succeeds 20 points less often (100% → 80%, allowed drop 5 points)',
      },
    ]);
    // Without max_regression, an 833% cost rise is a figure for the reader, not a budget that holds.
    const unlimited = compareToBaseline(
      'a',
      b.scenarios.a,
      { runs: 2, tokens_mean: 100, cost_usd_mean: 0.0933, success_rate: 1 },
      {},
    );
    expect(unlimited.map((v) => [v.name, v.reportOnly, v.measured])).toEqual([
      ['baseline: cost per task', true, '$0.010 → $0.093 (+833%)'],
      ['baseline: tokens per task', true, '100 → 100 (+0%)'],
      ['baseline: success rate', true, '100% → 100%'],
    ]);
    const steps = { suite: 'a', name: 'steps max ≤ 8', pass: true, measured: '4', limit: '≤ 8', message: 'a: ok' };
    expect(verdictLine([steps, ...unlimited])).toBe('the 1 budget holds');
    const md = checkSummaryMd({
      budgetsFile: 'b.yaml',
      model: 'sim',
      simulated: false,
      verdicts: [steps, ...unlimited],
      report: '',
    });
    expect(md).toContain(
      '| ℹ️ | a | baseline: cost per task | $0.010 → $0.093 (+833%) | none: max_regression.cost not set |',
    );
    const xml = junitXml([steps, ...unlimited]);
    expect(xml).toContain('tests="4" failures="0" errors="0" skipped="3"');
    expect(xml).toContain('<skipped message="reported only, no limit: $0.010 → $0.093 (+833%)"/>');
    fs.writeFileSync(
      file,
      JSON.stringify({ tool: 'loopbench-baseline', created_at: 'x', scenarios: { a: { runs: 2 } } }),
    );
    await expect(loadBaseline(file)).rejects.toThrow(/--baseline .*baseline\.json: scenarios\.a\.tokens_mean/);
    await expect(loadBaseline(path.join(dir, 'nope'))).rejects.toThrow(UsageError);
  });
});

describe('the spend cap', () => {
  it('reserves each run’s worst case, so spend never crosses the cap, and stops starting runs once one does not fit', async () => {
    const l = new SpendLimiter(1);
    expect(await l.acquire(0.4)).toBe(true);
    expect(await l.acquire(0.4)).toBe(true);
    const third = l.acquire(0.4); // waits: 0.8 reserved, 0.4 more would cross 1.0
    l.release(0.4, 0.1);
    expect(await third).toBe(true); // 0.1 spent + 0.4 + 0.4 reserved ≤ 1
    l.release(0.4, 0.4);
    l.release(0.4, 0.3);
    expect(await l.acquire(0.4)).toBe(false); // 0.8 spent: 0.4 more could cross
    expect(await l.acquire(0.01)).toBe(false); // once stopped, no run starts
    expect(l.state).toMatchObject({ cap_usd: 1, stopped: true, runs_skipped: 2 });
    expect(l.state.spent_usd).toBeCloseTo(0.8, 10);
  });

  it('cuts a sweep short below the cap, records it in meta.json, and the check fails saying so', async () => {
    const file = budgets();
    const out = path.join(dir, 'capped');
    // Each run may spend up to $0.01 (its max_cost); the 8 runs spend ~$0.01 in all, so a $0.015 cap
    // refuses the run that would start once ~$0.005 is spent.
    const outcome = await runBudgets(file, out, { spend: new SpendLimiter(0.015), concurrency: 1 });
    const meta = readMeta(out)!;
    expect(meta.status).toBe('capped');
    expect(meta.spend!.stopped).toBe(true);
    expect(outcome.runs.length).toBeLessThan(8);
    expect(outcome.runs.length + meta.spend!.runs_skipped).toBe(8);
    const spent = outcome.runs.reduce((s, r) => s + r.cost_usd, 0);
    expect(spent).toBeLessThanOrEqual(0.015);
    expect(spent + 0.01).toBeGreaterThan(0.015); // the refused run really could have crossed it
    expect(meta.spend!.spent_usd).toBeCloseTo(spent, 10);
    const gate = judge(loadBudgets(file).checks, outcome.runs, { spend: meta.spend }).find((v) => v.suite === 'gate')!;
    expect(gate.pass).toBe(false);
    expect(gate.message).toMatch(/^the spend cap \$0\.015 stopped the check: \d run\(s\) were not started/);
  });
});

describe('shards', () => {
  it('slices the plan deterministically into disjoint parts that cover it', () => {
    const plans = Array.from({ length: 10 }, (_, i) => i);
    const parts = [1, 2, 3].map((i) => shardSlice(plans, { index: i, count: 3 }));
    expect(parts).toEqual([
      [0, 3, 6, 9],
      [1, 4, 7],
      [2, 5, 8],
    ]);
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 });
    for (const bad of ['0/4', '5/4', '2', 'a/b', '1/0'])
      expect(() => parseShard(bad)).toThrow(/--shard: '.*' is not a shard i\/n/);
  });

  const shards = [1, 2, 3, 4].map((i) => path.join(dir, `shard-${i}`));
  const merged = path.join(dir, 'merged');
  /** The unsharded sweep and its four shards, run once for the tests below. */
  const sharded = once(async () => {
    const file = budgets();
    await runBudgets(file, path.join(dir, 'whole'));
    // Out of order on purpose: the merge must not depend on it.
    for (const i of [3, 1, 4, 2]) await runBudgets(file, shards[i - 1]!, { shard: { index: i, count: 4 } });
  });
  const merge = once(async () => {
    await sharded();
    return mergeShards([shards[2]!, shards[0]!, shards[3]!, shards[1]!], merged, ['merge']);
  });

  it('merges 4 shards into the same records as the unsharded run (timestamps aside)', async () => {
    const outcome = await merge();
    expect(outcome).toEqual({ shards: 4, runs: 8, skippedLines: 0, status: 'complete' });

    const strip = <T extends object>(rs: T[]) =>
      rs
        .map(({ started_at: _s, finished_at: _f, ...r }: T & { started_at?: string; finished_at?: string }) => r)
        .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    for (const f of ['runs.jsonl', 'steps.jsonl']) {
      const whole = (await readJsonl<RunRecord | StepRecord>(path.join(dir, 'whole', f))).records;
      const got = (await readJsonl<RunRecord | StepRecord>(path.join(merged, f))).records;
      expect(got.length).toBe(whole.length);
      expect(strip(got)).toEqual(strip(whole));
    }
    expect(fs.readdirSync(path.join(merged, 'transcripts')).sort()).toEqual(
      fs.readdirSync(path.join(dir, 'whole', 'transcripts')).sort(),
    );
    const meta = readMeta(merged)!;
    const wholeMeta = readMeta(path.join(dir, 'whole'))!;
    expect(meta.shard).toBeUndefined();
    expect([meta.runs_planned, meta.runs_done, meta.status]).toEqual([8, 8, 'complete']);
    for (const k of ['scenarios', 'scenario_digests', 'grid', 'fixed', 'repeat', 'seed'] as const)
      expect(meta[k]).toEqual(wholeMeta[k]);
    expect(meta.merged_from).toEqual(shards);
  });

  it('bench check --from judges only results of the same sweep: merged, same prompts, same settings', async () => {
    await merge();
    const mergedMeta = readMeta(merged)!;
    const loaded = loadBudgets(budgets());
    expect(() => assertSameSweep(loaded, mergedMeta, 'merged')).not.toThrow();
    expect(() => assertSameSweep(loaded, readMeta(path.join(dir, 'shard-1'))!, 'shard-1')).toThrow(
      /only shard 1\/4 \(merge the shards with bench merge first\)/,
    );
    const changed = loadBudgets(budgets('    system: "Another prompt."\n'));
    expect(() => assertSameSweep(changed, mergedMeta, 'merged')).toThrow(
      '--from merged: these results do not match ' +
        changed.file +
        ": scenario 'quick-sum' was run with another prompt",
    );
    const more = loadBudgets(
      writeBudgets(dir, fs.readFileSync(budgets(), 'utf8').replace('repeats: 4', 'repeats: 5'), 'more.yaml'),
    );
    expect(() => assertSameSweep(more, mergedMeta, 'merged')).toThrow(/: repeats 4, not 5$/);
  });

  it('refuses an incomplete or mixed set of shards', async () => {
    await sharded();
    const out = path.join(dir, 'bad-merge');
    await expect(mergeShards(shards.slice(0, 3), out, [])).rejects.toThrow('missing shard(s) 4/4: a merge needs all 4');
    await expect(mergeShards([shards[0]!, shards[0]!, shards[1]!, shards[2]!], out, [])).rejects.toThrow(
      /are both shard 1\/4/,
    );
    await expect(mergeShards([...shards.slice(0, 3), path.join(dir, 'whole')], out, [])).rejects.toThrow(
      /whole: not a shard/,
    );
    const other = path.join(dir, 'other-seed');
    await runBudgets(
      writeBudgets(dir, fs.readFileSync(budgets(), 'utf8').replace('repeats: 4', 'repeats: 4\nseed: 9'), 'seed9.yaml'),
      other,
      { shard: { index: 4, count: 4 } },
    );
    await expect(mergeShards([...shards.slice(0, 3), other], out, [])).rejects.toThrow(
      /other-seed: seed differs .*not a shard of the same sweep/,
    );
  });
});

describe('JUnit and GitHub output', () => {
  const verdicts = [
    { suite: 'a', name: 'steps max ≤ 8', pass: true, measured: '4', limit: '≤ 8', message: 'a: ok' },
    {
      suite: 'a',
      name: 'cost_usd p95 ≤ $0.02',
      pass: false,
      measured: '$0.03',
      limit: '≤ $0.02',
      message: 'a: cost <high> & "rising"',
    },
    {
      suite: 'gate',
      name: 'ci spend ≤ $1',
      pass: false,
      measured: '$0.9',
      limit: '≤ $1',
      message: 'the spend cap,\nstopped: it',
    },
  ];

  it('writes testsuites/testsuite/testcase/failure that a real XML parser reads back', () => {
    const xml = junitXml(verdicts);
    // Python's ElementTree: a real XML parser, independent of the writer.
    const py = `import json,sys,xml.etree.ElementTree as ET
r=ET.fromstring(sys.stdin.read())
print(json.dumps({"root":r.tag,"tests":r.get("tests"),"failures":r.get("failures"),"suites":[{"name":s.get("name"),"tests":s.get("tests"),"failures":s.get("failures"),"cases":[{"name":c.get("name"),"classname":c.get("classname"),"failure":(c.find("failure").get("message") if c.find("failure") is not None else None)} for c in s.findall("testcase")]} for s in r.findall("testsuite")]}))`;
    const p = spawnSync('python3', ['-c', py], { input: xml, encoding: 'utf8' });
    expect(p.stderr).toBe('');
    expect(JSON.parse(p.stdout)).toEqual({
      root: 'testsuites',
      tests: '3',
      failures: '2',
      suites: [
        {
          name: 'a',
          tests: '2',
          failures: '1',
          cases: [
            { name: 'steps max ≤ 8', classname: 'bench.a', failure: null },
            { name: 'cost_usd p95 ≤ $0.02', classname: 'bench.a', failure: 'a: cost <high> & "rising"' },
          ],
        },
        {
          name: 'gate',
          tests: '1',
          failures: '1',
          cases: [{ name: 'ci spend ≤ $1', classname: 'bench.gate', failure: 'the spend cap,\nstopped: it' }],
        },
      ],
    });
  });

  it('emits one ::error:: per breach with workflow-command escaping', () => {
    expect(errorAnnotations(verdicts, 'ci/budgets.yaml')).toEqual([
      '::error file=ci/budgets.yaml,title=budget breached%3A a::a: cost <high> & "rising"',
      '::error file=ci/budgets.yaml,title=budget breached%3A gate::the spend cap,%0Astopped: it',
    ]);
  });
});
