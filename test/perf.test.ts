// Performance as behaviour (never wall-clock): each message is tokenized once, counting a growing
// conversation is incremental yet exact, nothing is held per run, and the fast output paths write
// exactly what the plain ones would.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { describe, expect, it } from 'vitest';
import { messageTokensUncached, TokenCounter, toolsTokensUncached } from '../src/meter/tokens.ts';
import type { ChatMessage } from '../src/contracts/chat.ts';
import { measureOverhead, RecordingCounter, tokenizeOnce } from '../src/perf/overhead.ts';
import { concurrencyRow, formatTargets, importRows, overheadRow } from '../src/perf/table.ts';
import { csvLine, runRow, stepRow, toCsv } from '../src/report/render/csv.ts';
import { CsvFileWriter } from '../src/report/render/csv-file.ts';
import { forEachConcurrently } from '../src/runner/pool.ts';
import { stepLine } from '../src/results/step-line.ts';
import { resolveScenario } from '../src/scenario/loader.ts';
import { ToolRegistry } from '../src/tools/registry.ts';
import { gridOf, runOnce, runPlans, specOf } from './helpers.ts';
import { patient } from './helpers/patient.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const OFF = { timeout_s: null, max_cost_usd: null, max_repeat: null };

describe('metering cost', () => {
  it('a 100-step run tokenizes each message once: tokenizations = distinct messages + the tool list', async () => {
    const counter = new TokenCounter();
    const r = await runOnce('seed-calibrated', { ...OFF, max_steps: 100 }, {});
    expect(r.record.steps).toBe(100);
    const again = (await runPlans(specOf(['seed-calibrated'], gridOf({ ...OFF, max_steps: 100 })), counter))[0]!;
    expect(again.record.input_tokens).toBe(r.record.input_tokens);
    expect(new Set(again.messages).size).toBe(again.messages.length);
    expect(counter.tokenizations).toBe(again.messages.length + 1);
  });

  it('counts a conversation incrementally and still exactly, even when a message is replaced mid-way', () => {
    const tools = ToolRegistry.fromDecls(resolveScenario('seed-calibrated').tools).specs;
    const counter = new TokenCounter();
    const exact = (ms: ChatMessage[]) =>
      3 + toolsTokensUncached(tools) + ms.reduce((s, m) => s + messageTokensUncached(m), 0);
    const messages: ChatMessage[] = [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Sum the squares of 1..10.' },
    ];
    expect(counter.prompt(messages, tools)).toBe(exact(messages));
    messages.push({ role: 'assistant', content: 'Thought 1: compute it.' }, { role: 'user', content: 'go on' });
    expect(counter.prompt(messages, tools)).toBe(exact(messages));
    messages[1] = { role: 'user', content: 'A much longer replacement goal, with many more words in it than before.' };
    expect(counter.prompt(messages, tools)).toBe(exact(messages));
    messages.length = 2;
    expect(counter.prompt(messages, tools)).toBe(exact(messages));
  });

  it('the overhead baseline tokenizes exactly what the sweep tokenized, and its table row compares the two', async () => {
    const recorder = new RecordingCounter();
    const ran = await runPlans(specOf(['seed-calibrated'], gridOf({ max_steps: 8 }), { repeat: 2 }), recorder);
    // runPlans builds a tool list per run (a sweep shares one per scenario): each is tokenized once too.
    const distinct = ran.reduce((s, r) => s + r.messages.length + 1, 0);
    expect(recorder.tokenized.length).toBe(distinct);
    expect(recorder.tokenizations).toBe(distinct);
    expect(tokenizeOnce(recorder.tokenized).tokens).toBeGreaterThan(0);

    const o = await measureOverhead({ scenario: 'seed-calibrated', steps: '3', repeat: '2' }, 1);
    expect(o.sweep.steps).toBe(6);
    expect(o.tokenized).toBe(2 * (2 + 2 * 3) + 1);
    expect(o.ratio).toBeCloseTo(o.sweep.cpuMs / o.tokenize.cpuMs, 9);
    expect(o.harnessUsPerStep).toBeGreaterThan(0);
    const row = overheadRow(o);
    expect(row.ok).toBe(o.ratio <= 1.25);
    const lines = formatTargets([row]).split('\n');
    expect(lines[0]).toMatch(/^target +measured +limit +ratio +ok$/);
    expect(lines[2]).toMatch(
      new RegExp(`^1\\. metering overhead.* ${o.ratio.toFixed(2)} +≤ 1\\.25 +[0-9.,]+ +${row.ok ? 'yes' : 'NO'}$`),
    );
    // The detail goes under the table, numbered like its row, so the table stays narrow.
    expect(lines[3]).toBe('');
    expect(lines[4]).toMatch(/^1\. sweep [0-9,]+ ms CPU \(6 steps\) ÷ tokenizing its 17 messages/);
    expect(Math.max(...lines.slice(0, 3).map((l) => l.length))).toBeLessThan(120);
  });

  it("the workers row is the median of its pairs (the lower middle of an even count), lists every pair, and sets it against the machine's ceiling", async () => {
    const { medianBySpeedUp } = await import('../src/perf/workers.ts');
    const { workersRows } = await import('../src/perf/table.ts');
    const timing = (ms: number) => ({ ms, cpuMs: ms, runs: 1000, steps: 5000, calls: 52_135 });
    const pair = (one: number, many: number) => ({ one: timing(one), many: timing(many), speedUp: one / many });
    const pairs = [pair(9000, 5000), pair(8000, 5000), pair(9500, 5000), pair(7000, 5000)];
    expect(medianBySpeedUp(pairs).speedUp).toBe(1.6);
    const child = { ms: 8000, cpuMs: 12_000, peakRssMb: 245, stdout: '', stderr: '' };
    const sample = (alone: number, slowest: number) => ({
      alone: timing(alone),
      together: [timing(slowest - 500), timing(slowest)],
      speedUp: (2 * alone) / slowest,
    });
    const ceilings = [sample(10_000, 11_000), sample(10_000, 10_000), sample(10_000, 12_500), sample(10_000, 10_500)];
    expect(medianBySpeedUp(ceilings).speedUp).toBeCloseTo(20 / 11, 9);
    const [speed, rss] = workersRows({
      workers: 2,
      ceilings,
      ceiling: medianBySpeedUp(ceilings),
      pairs,
      median: medianBySpeedUp(pairs),
      child,
    });
    expect(speed!.value).toBe(1.6);
    expect(speed!.ok).toBe(false);
    expect(speed!.detail).toContain(
      'the median of 4 back-to-back pair(s), order alternating (1.80×, 1.60×, 1.90×, 1.40×)',
    );
    expect(speed!.detail).toContain(
      'one sample after each pair (2 independent one-thread processes running the same sweep phase at once against one alone): 1.82×, 2.00×, 1.60×, 1.90×;',
    );
    expect(speed!.detail).toContain(
      'the median sample took 11.0 s against 10.0 s for one alone, 1.82× the throughput; the workers reached 88 % of it',
    );
    expect(rss!.value).toBe(245);
  });

  it('a floor target (concurrency efficiency) uses limit ÷ measured as its ratio, with the limit in its unit', () => {
    const bench = (measuredS: number) => ({
      runs: 100,
      steps: 10,
      concurrency: 16,
      latencyMs: 200,
      calls: 1000,
      idealS: 12.5,
      measuredS,
      efficiency: 12.5 / measuredS,
      errors: 0,
      cpuMsPerCall: 1,
    });
    const c = concurrencyRow(bench(13.1));
    expect(c).toMatchObject({ measured: '95.4 %', limitText: '≥ 90.0 %', ok: true });
    expect(c.ratio).toBeCloseTo(0.9 / (12.5 / 13.1), 9);
    expect(concurrencyRow(bench(15)).ok).toBe(false);
  });

  it("the import rows take each round's import against that round's floor: the median ratio, the highest peak RSS, min–median–max in the detail", () => {
    const child = (cpuMs: number, peakRssMb: number) => ({ ms: cpuMs, cpuMs, peakRssMb, stdout: '', stderr: '' });
    // The middle round has the highest CPU but the lowest ratio: a median of CPUs over a median of floors would say 4.5×.
    const rounds = [
      { floorCpuMs: 4000, run: child(12_000, 180), reported: child(17_000, 430) },
      { floorCpuMs: 6000, run: child(13_000, 190), reported: child(22_000, 470) },
      { floorCpuMs: 4400, run: child(12_500, 185), reported: child(19_800, 450) },
    ].map((r) => ({ ...r, stepsPerSecond: 1_000_000 / (r.run.ms / 1000) }));
    const [r11, r12, r13, r14] = importRows({ steps: 1_000_000, fileMb: 261, rounds });
    expect(r13!.value).toBeCloseTo(4.25, 9);
    expect(r13!.measured).toBe('4.3×');
    expect(r13!.ok).toBe(false);
    expect(r13!.detail).toContain('3.7×–4.3×–4.5×');
    expect(r13!.detail).toContain('3 round(s)');
    expect(r11!.value).toBe(1_000_000 / 12.5);
    expect([r12!.value, r14!.value]).toEqual([190, 470]);
    expect(r14!.detail).toContain('(430–450–470 MB)');
    expect(r13!.detail).toContain('the reports take 5.0 s–7.3 s–9.0 s;');
    expect(r13!.detail).not.toContain('below 0 s');
    // A round whose import with reports took less CPU than its import without: said to be the machine.
    rounds[1]!.reported = child(12_900, 470);
    const noisy = importRows({ steps: 1_000_000, fileMb: 261, rounds })[2]!;
    expect(noisy.detail).toContain('the reports take -0.1 s–5.0 s–7.3 s, a round below 0 s');
  });

  it('keeps no per-call log when no transcript is written', async () => {
    const { executeRun } = await import('../src/runner/run-one.ts');
    const { expandSweep } = await import('../src/runner/sweep.ts');
    const plan = expandSweep(specOf(['seed-calibrated'], gridOf({ max_steps: 5 })))[0]!;
    const deps = {
      counter: new TokenCounter(),
      tools: () => ToolRegistry.fromDecls(plan.scenario.tools),
      onStep: () => {},
    };
    expect((await executeRun(plan, { ...deps, transcript: false })).calls).toHaveLength(0);
    expect((await executeRun(plan, deps)).calls).toHaveLength(5);
  });
});

describe('memory does not grow with the number of runs', () => {
  it('the sweep pool pulls a run only when a worker is free, never more than the concurrency at once', async () => {
    let pulled = 0;
    let done = 0;
    let inFlight = 0;
    let maxInFlight = 0;
    let maxAhead = 0;
    function* items() {
      for (let i = 0; i < 2000; i++) {
        pulled++;
        maxAhead = Math.max(maxAhead, pulled - done);
        yield i;
      }
    }
    await forEachConcurrently(items(), 4, async () => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setImmediate(r));
      inFlight--;
      done++;
    });
    expect(done).toBe(2000);
    expect(maxInFlight).toBe(4);
    expect(maxAhead).toBeLessThanOrEqual(4);
  });
});

describe('fast output paths write the same bytes', () => {
  it('stepLine is JSON.stringify of the step record', async () => {
    const r = await runOnce('seed-calibrated', { max_steps: 3 });
    for (const s of r.steps) expect(stepLine(s)).toBe(`${JSON.stringify(s)}\n`);
  });

  it('CsvFileWriter streams what toCsv would write whole: header from the first row, chunks, nothing for no rows', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-csv-'));
    try {
      const r = await runOnce('seed-calibrated', { max_steps: 3 });
      const rows = Array.from({ length: 3000 }, (_, i) => ({
        ...runRow(r.record),
        run_id: `run "${i}", again`,
        answer: i % 7 ? '' : 'two\nlines',
      }));
      const many = new CsvFileWriter(path.join(dir, 'many.csv'));
      for (const row of rows) many.add(row);
      many.commit();
      expect(fs.readFileSync(path.join(dir, 'many.csv'), 'utf8')).toBe(toCsv(rows));
      const none = new CsvFileWriter(path.join(dir, 'none.csv'));
      none.commit();
      expect(fs.readFileSync(path.join(dir, 'none.csv'), 'utf8')).toBe(toCsv([]));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a scripted tool writes each distinct call once, and what it remembers is what it would write afresh', async () => {
    const decls = resolveScenario('seed-calibrated').tools;
    const tool = ToolRegistry.fromDecls(decls).get('search')!;
    const first = await tool.run({ query: 'agent loop cost, source 1' });
    expect(await tool.run({ query: 'agent loop cost, source 1' })).toBe(first);
    expect(await ToolRegistry.fromDecls(decls).get('search')!.run({ query: 'agent loop cost, source 1' })).toBe(first);
    const other = await tool.run({ query: 'agent loop cost, source 2' });
    expect(other).not.toBe(first);
    expect(await ToolRegistry.fromDecls(decls).get('search')!.run({ query: 'agent loop cost, source 2' })).toBe(other);
  });

  it('csvLine writes what csv-stringify writes, quotes, commas, newlines and empties included', async () => {
    const r = await runOnce('seed-calibrated', { max_steps: 3 });
    const rows = [
      ...r.steps.map(stepRow),
      runRow(r.record),
      {
        a: 'say "hi", then go',
        b: 'two\nlines',
        c: '',
        d: null,
        e: true,
        f: false,
        g: 0.1 + 0.2,
        h: 'cr\rhere',
        i: undefined,
      },
    ];
    for (const row of rows) {
      const reference = stringify([row], {
        header: true,
        columns: Object.keys(row),
        cast: { boolean: (v) => String(v) },
      });
      expect(csvLine(row, true) + csvLine(row)).toBe(reference);
    }
  });
});

describe('bench perf flags', () => {
  const bench = (...args: string[]) =>
    spawnSync(process.execPath, [path.join(ROOT, 'bin/bench.js'), ...args], { cwd: ROOT, encoding: 'utf8' });

  it.each([
    [
      ['--only', 'speed'],
      /--only: 'speed' is not accepted \(accepted: micro, overhead, linear, concurrency, gateway, scale, workers, import\)/,
    ],
    [['--repeat', '0'], /--repeat: 0 is below the minimum 1/],
    [['--repeat', '2,3'], /--repeat: takes one value/],
  ])('bench perf %j fails with one line and exit code 2', (args, message) => {
    const r = bench('perf', ...args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it(
    "--only workers --quick measures its pair and the machine's ceiling and prints both workers rows (a smoke test, not a measurement)",
    () => {
      const r = bench('perf', '--only', 'workers', '--quick', '--json');
      expect(r.status, r.stderr).toBe(0);
      const { workers } = JSON.parse(r.stdout);
      expect(workers.pairs).toHaveLength(1);
      expect(workers.pairs[0].one.runs).toBe(workers.pairs[0].many.runs);
      expect(workers.ceilings).toHaveLength(1);
      expect(workers.ceiling.together).toHaveLength(workers.workers);
      expect(workers.ceiling.alone.runs).toBe(workers.pairs[0].one.runs); // the same sweep phase, in a child process
      expect(workers.ceiling.speedUp).toBeGreaterThan(0);
      const targets = JSON.parse(r.stdout).targets.map((t: { target: string }) => t.target);
      expect(targets).toEqual([
        expect.stringMatching(/^6\. workers: scale sweep wall time/),
        expect.stringMatching(/^7\. workers: peak RSS/),
      ]);
    },
    patient(120_000),
  );

  it(
    '--only import --quick imports its trajectory in a child process, without and with reports, and prints the rate, the ratio to the floor and the peak RSS; then a Claude Code session and a Codex rollout, every call counted (a smoke test)',
    () => {
      // Two rounds, each import against its own round's floor.
      const r = bench('perf', '--only', 'import', '--quick', '--rounds', '2', '--json');
      expect(r.status, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out.import.steps).toBe(20_000);
      expect(out.import.rounds).toHaveLength(2);
      const [round] = out.import.rounds;
      expect(round.run.stdout).toMatch(/imported 1 run\(s\), 20000 agent step\(s\); records in /);
      expect(round.floorCpuMs).toBeGreaterThan(0);
      expect(out.targets.map((t: { target: string }) => t.target)).toEqual([
        expect.stringMatching(/^\d+\. import: steps\/s/),
        expect.stringMatching(/^\d+\. import: peak RSS/),
        expect.stringMatching(/^\d+\. import with reports: CPU ÷ its round's floor, median/),
        expect.stringMatching(/^\d+\. import with reports: peak RSS/),
        expect.stringMatching(
          /^15\. import: a 20,000-line Claude Code session, every call and token counted; peak RSS/,
        ),
        expect.stringMatching(/^16\. import: a 20,000-line Codex rollout, every call and token counted; peak RSS/),
      ]);
      expect(round.reported.stdout).toMatch(/report\.html/);
      expect(out.agentLogs.map((l: { exact: boolean; problem: string }) => [l.exact, l.problem])).toEqual([
        [true, ''],
        [true, ''],
      ]);
    },
    patient(120_000),
  );

  it('--rounds takes one whole number from 1 to 100', () => {
    for (const bad of ['0', '2,3', 'x']) {
      const r = bench('perf', '--only', 'import', '--rounds', bad);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/--rounds/);
    }
  });

  it('documents every flag in --help', () => {
    const r = bench('perf', '--help');
    expect(r.status).toBe(0);
    for (const flag of ['--only', '--repeat', '--rounds', '--quick', '--json']) expect(r.stdout).toContain(flag);
  });
});
