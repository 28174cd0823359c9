// Each brake alone, as the pure function it is (state in, typed Stop out), and the table of brakes
// that the flags, the grid, the budgets schema, meta.json's schema and the CSV columns come from.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { newRunState, type Action, type ActionOutcome, type PendingCall, type RunState } from '../src/brakes/brake.ts';
import { brakesFor } from '../src/brakes/index.ts';
import { cycleBrake } from '../src/brakes/cycle.ts';
import { maxCallsBrake } from '../src/brakes/max-calls.ts';
import { maxCostBrake } from '../src/brakes/max-cost.ts';
import { maxRoundsBrake } from '../src/brakes/max-rounds.ts';
import { maxStepsBrake } from '../src/brakes/max-steps.ts';
import { maxTokensBrake } from '../src/brakes/max-tokens.ts';
import { argsSimilarity, nearDuplicateBrake } from '../src/brakes/near-duplicate.ts';
import { sameErrorBrake } from '../src/brakes/same-error.ts';
import { spinBrake } from '../src/brakes/spin.ts';
import { timeoutBrake } from '../src/brakes/timeout.ts';
import { failureOf } from '../src/agents/actions.ts';
import { LIMITS, SEED_LIMITS } from '../src/contracts/limits.ts';
import { canonicalJson } from '../src/contracts/fingerprint.ts';
import { BudgetsSchema } from '../src/gate/budgets-schema.ts';
import { loadBudgets } from '../src/gate/load-budgets.ts';
import { limitGrid } from '../src/runner/plan.ts';
import { expandSweep } from '../src/runner/sweep.ts';
import { loadMeta } from '../src/results/meta.ts';
import { ROOT } from '../src/contracts/paths.ts';
import { runRow } from '../src/report/render/csv.ts';
import { gridOf, specOf } from './helpers.ts';

const state = (o: Partial<RunState> = {}): RunState => ({ ...newRunState(), ...o });
const call = (o: Partial<PendingCall> = {}): PendingCall => ({
  role: 'act',
  inputTokens: 100,
  maxOutputTokens: 50,
  projectedCostUsd: 0.001,
  ...o,
});
const action = (tool: string, args: unknown): Action => {
  const argsJson = canonicalJson(args);
  return { tool, argsJson, fingerprint: `${tool}(${argsJson})` };
};
const done = (
  step: number,
  a: Action,
  observation = `result of ${a.fingerprint}`,
  failure: string | null = null,
): ActionOutcome => ({ ...a, step, observation, failure });
/** History of executed actions, one per step, each returning its fixed result (as a scripted tool does). */
const ran = (...as: Action[]) => as.map((a, i) => done(i + 1, a));

describe('each brake alone: a pure function of the run state, with typed fields behind its detail', () => {
  it('step limit: lets step 12 run, stops the 13th; other roles are not agent steps', () => {
    const b = maxStepsBrake(12);
    expect(b.beforeCall!(state({ steps: 11 }), call())).toBeNull();
    expect(b.beforeCall!(state({ steps: 12 }), call({ role: 'reflect' }))).toBeNull();
    expect(b.beforeCall!(state({ steps: 12 }), call())).toEqual({
      reason: 'max_steps',
      step: 12,
      fired: { brake: 'max_steps', value: 12, limit: 12 },
      detail: 'step limit reached: 12 of 12 steps taken',
    });
  });

  it('budget: stops when spent + the worst case of the next call would pass the limit, never at equality', () => {
    const b = maxCostBrake(0.02);
    expect(b.beforeCall!(state({ costUsd: 0.015 }), call({ projectedCostUsd: 0.005 }))).toBeNull();
    const s = b.beforeCall!(
      state({ costUsd: 0.0187, steps: 9 }),
      call({ projectedCostUsd: 0.0019, inputTokens: 1200, maxOutputTokens: 1024 }),
    )!;
    expect(s.fired).toEqual({ brake: 'max_cost_usd', value: 0.0187 + 0.0019, limit: 0.02 });
    expect(s.detail).toBe(
      'budget $0.0200: spent $0.0187, next call could cost up to $0.0019 (1200 input + 1024 max output tokens)',
    );
  });

  it('timeout: fires once the clock reaches the limit', () => {
    const b = timeoutBrake(120);
    expect(b.beforeCall!(state({ elapsedMs: 119_999 }), call())).toBeNull();
    const s = b.beforeCall!(state({ elapsedMs: 121_400, steps: 30 }), call())!;
    expect([s.reason, s.fired, s.detail]).toEqual([
      'timeout',
      { brake: 'timeout_s', value: 121.4, limit: 120 },
      'timeout 120 s: 121.4 s elapsed',
    ]);
  });

  it('tokens: projected like the budget', () => {
    const b = maxTokensBrake(1000);
    expect(b.beforeCall!(state({ inputTokens: 800 }), call({ inputTokens: 100, maxOutputTokens: 100 }))).toBeNull();
    const s = b.beforeCall!(
      state({ inputTokens: 800, outputTokens: 1 }),
      call({ inputTokens: 100, maxOutputTokens: 100 }),
    )!;
    expect([s.fired, s.detail]).toEqual([
      { brake: 'max_tokens', value: 1001, limit: 1000 },
      'token limit 1000: 801 used, next call could bring it to 1001',
    ]);
  });

  it('calls and rounds', () => {
    expect(maxCallsBrake(5).beforeCall!(state({ calls: 4 }), call())).toBeNull();
    expect(maxCallsBrake(5).beforeCall!(state({ calls: 5 }), call())!.fired).toEqual({
      brake: 'max_calls',
      value: 5,
      limit: 5,
    });
    expect(maxRoundsBrake(3).beforeRound!(state({ rounds: 2 }))).toBeNull();
    expect(maxRoundsBrake(3).beforeRound!(state({ rounds: 3 }))!.detail).toBe(
      'round limit reached: 3 of 3 rounds done',
    );
  });

  it('spin: the repeat after MAX_REPEAT runs is blocked', () => {
    const a = action('check_completeness', {});
    const b = spinBrake(3);
    expect(b.beforeAction!(state({ repeats: new Map([[a.fingerprint, 2]]) }), a)).toBeNull();
    const s = b.beforeAction!(state({ steps: 8, repeats: new Map([[a.fingerprint, 3]]) }), a)!;
    expect([s.reason, s.fired, s.detail]).toEqual([
      'spin',
      { brake: 'max_repeat', value: 3, limit: 3 },
      'spin: check_completeness({}) already ran 3 times (max repeat 3); repeat 4 blocked at step 8',
    ]);
  });
});

describe('cycle detector (--max-cycle)', () => {
  const sort = (criterion: string) => action('sort', { criterion });
  const [T, D, P, S] = ['type', 'date', 'project', 'size'].map(sort) as [Action, Action, Action, Action];

  it('blocks the start of the second full repetition of a 4-cycle, naming the actions', () => {
    const b = cycleBrake(4);
    expect(b.beforeAction!(state({ steps: 8, history: ran(T, D, P, S, T, D, P) }), S)).toBeNull();
    const s = b.beforeAction!(state({ steps: 9, history: ran(T, D, P, S, T, D, P, S) }), T)!;
    expect(s.fired).toEqual({ brake: 'max_cycle', value: 4, limit: 4 });
    expect(s.detail).toBe(
      'cycle: sort({"criterion":"type"}) → sort({"criterion":"date"}) → sort({"criterion":"project"}) → sort({"criterion":"size"}) repeated (period 4, max cycle 4); blocked at step 9',
    );
  });

  it('misses a cycle longer than its limit, and catches A-B-A-B and A-A-A at period 2 and 1', () => {
    expect(cycleBrake(3).beforeAction!(state({ history: ran(T, D, P, S, T, D, P, S) }), T)).toBeNull();
    expect(cycleBrake(2).beforeAction!(state({ history: ran(T, D, T, D) }), T)!.fired!.value).toBe(2);
    expect(cycleBrake(1).beforeAction!(state({ history: ran(T, T) }), T)!.fired!.value).toBe(1);
    expect(cycleBrake(2).beforeAction!(state({ history: ran(T, D, T, D) }), P)).toBeNull();
  });

  it('is no cycle when the results change: a poll whose status moves on runs on', () => {
    const poll = action('job_status', { job: 'export-42' });
    const history = ['queued', 'running 10%', 'running 40%', 'running 70%'].map((status, i) =>
      done(i + 1, poll, status),
    );
    expect(cycleBrake(4).beforeAction!(state({ history }), poll)).toBeNull();
    const stalled = ['running 70%', 'running 70%'].map((status, i) => done(i + 1, poll, status));
    expect(cycleBrake(1).beforeAction!(state({ history: stalled }), poll)).not.toBeNull();
  });
});

describe('same-error detector (--max-same-error)', () => {
  const py = (n: number) => action('run_python', { code: `# attempt ${n}\nprint(open('/data/sales.csv').read())` });
  const fnf = "FileNotFoundError: [Errno 2] No such file or directory: '/data/sales.csv'";

  it('blocks a tool whose last N calls failed the same way, whatever their arguments', () => {
    const history = [1, 2, 3].map((n) => done(n, py(n), `Traceback (most recent call last):\n  …\n${fnf}`, fnf));
    expect(sameErrorBrake(4).beforeAction!(state({ history }), py(4))).toBeNull();
    const s = sameErrorBrake(3).beforeAction!(state({ steps: 4, history }), py(4))!;
    expect(s.fired).toEqual({ brake: 'max_same_error', value: 3, limit: 3 });
    expect(s.detail).toBe(
      `same error: run_python failed 3 times in a row with "${fnf}" (max same error 3); blocked at step 4`,
    );
  });

  it('does not fire on different errors, on a success in between, or for another tool', () => {
    const other = done(2, py(2), 'Traceback (most recent call last):\nKeyError: x', 'KeyError: x');
    const h = (middle: ActionOutcome) => [done(1, py(1), fnf, fnf), middle, done(3, py(3), fnf, fnf)];
    expect(sameErrorBrake(3).beforeAction!(state({ history: h(other) }), py(4))).toBeNull();
    expect(sameErrorBrake(3).beforeAction!(state({ history: h(done(2, py(2), '42')) }), py(4))).toBeNull();
    expect(
      sameErrorBrake(1).beforeAction!(state({ history: [done(1, py(1), fnf, fnf)] }), action('search', { q: 'x' })),
    ).toBeNull();
  });

  it('reads failures from error observations and Python tracebacks only', () => {
    expect(failureOf("Error: unknown tool 'x'. Available tools: a.")).toBe(
      "Error: unknown tool 'x'. Available tools: a.",
    );
    expect(failureOf(`Traceback (most recent call last):\n  File "<stdin>", line 1\n${fnf}\n`)).toBe(fnf);
    expect(failureOf('338350')).toBeNull();
  });
});

describe('near-duplicate detector (--near-duplicate)', () => {
  const code = (n: number) =>
    action('run_python', {
      code: `# refinement ${n}: a named function\ndef sum_of_squares(n):\n    return sum(i * i for i in range(1, n + 1))\nprint(sum_of_squares(100))`,
    });
  const page = (n: number) => action('search', { query: 'overdue invoices 2025', page: String(n) });

  it('similarity is 1 − Levenshtein distance / the longer length', () => {
    expect(argsSimilarity('abcd', 'abcd')).toBe(1);
    expect(argsSimilarity('abcd', 'abce')).toBe(0.75);
    expect(argsSimilarity('', '')).toBe(1);
  });

  it('blocks a refinement that differs from an earlier one by one character, and names both', () => {
    const s = nearDuplicateBrake(0.98).beforeAction!(state({ steps: 6, history: [done(3, code(1))] }), code(2))!;
    expect(s.fired!.value).toBeGreaterThanOrEqual(0.98);
    expect(s.detail).toMatch(
      /^near-duplicate: run_python\(\{"code":"# refinement 2: .*… is 0\.99\d? similar to step 3's run_python\(\{"code":"# refinement 1: .*… \(threshold 0\.98\); blocked at step 6$/,
    );
  });

  it('leaves exact repeats to the spin brake, other tools alone, and the next page alone at 0.98 (not at 0.95)', () => {
    expect(nearDuplicateBrake(0.5).beforeAction!(state({ history: [done(1, code(1))] }), code(1))).toBeNull();
    expect(
      nearDuplicateBrake(0.5).beforeAction!(
        state({ history: [done(1, code(1))] }),
        action('other', JSON.parse(code(1).argsJson)),
      ),
    ).toBeNull();
    expect(nearDuplicateBrake(0.98).beforeAction!(state({ history: [done(1, page(1))] }), page(2))).toBeNull();
    expect(nearDuplicateBrake(0.95).beforeAction!(state({ history: [done(1, page(1))] }), page(2))).not.toBeNull();
  });
});

describe('the table of brakes', () => {
  it('makes one brake per limit that is on, in check order', () => {
    expect(brakesFor(SEED_LIMITS).map((b) => b.name)).toEqual(['max_steps', 'timeout', 'max_cost', 'spin']);
    expect(
      brakesFor({ ...SEED_LIMITS, max_cycle: 4, max_same_error: 3, near_duplicate: 0.98 }).map((b) => b.name),
    ).toEqual(['max_steps', 'timeout', 'max_cost', 'spin', 'cycle', 'same_error', 'near_duplicate']);
  });

  it('every row has a flag, a label, help and a default its own rule accepts', () => {
    for (const d of LIMITS) {
      expect(
        limitGrid({ [d.flag.slice(2).replace(/-(\w)/g, (_, c: string) => c.toUpperCase())]: d.default }),
      ).toBeTruthy();
      expect(d.help.length).toBeGreaterThan(10);
    }
  });

  it('a detector that is off is no grid dimension, no setting and no CSV column; on, it is all three', () => {
    const off = limitGrid({});
    expect('max_cycle' in off).toBe(false);
    const [plain] = expandSweep(specOf(['downloads-reorg'], gridOf()));
    expect(Object.keys(plain!.settings.limits)).toEqual([
      'max_steps',
      'max_cost_usd',
      'timeout_s',
      'max_repeat',
      'max_tokens',
      'max_calls',
      'max_rounds',
    ]);
    const on = limitGrid({ maxCycle: '2,off', nearDuplicate: '0.98' });
    expect([on.max_cycle, on.near_duplicate]).toEqual([[2, null], [0.98]]);
    const plans = expandSweep(specOf(['downloads-reorg'], { ...gridOf(), max_cycle: on.max_cycle }));
    expect(plans.map((p) => p.configId)).toEqual([
      'downloads-reorg steps=12 cycle=2',
      'downloads-reorg steps=12 cycle=off',
    ]);
    expect(plans.map((p) => p.settings.limits.max_cycle)).toEqual([2, null]);
  });

  it('the budgets file takes every limit, max_rounds and the detectors included, by the same rules as the flags', () => {
    const base = { scenarios: [{ scenario: 'x', assertions: {} }] };
    const ok = BudgetsSchema.safeParse({
      ...base,
      limits: { steps: 6, max_rounds: 4, max_cycle: 4, near_duplicate: 0.98, timeout: 0.5 },
    });
    expect(ok.success).toBe(true);
    for (const bad of [{ steps: 2.5 }, { timeout: 0 }, { near_duplicate: 1.5 }, { max_same_error: 0 }])
      expect(BudgetsSchema.safeParse({ ...base, limits: bad }).success).toBe(false);
  });

  it('a budgets file sets them for bench check, named by their own field', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-budgets-'));
    const file = path.join(dir, 'budgets.yaml');
    const write = (limits: string) =>
      fs.writeFileSync(
        file,
        `limits: ${limits}\nscenarios:\n  - scenario: downloads-reorg\n    assertions: { stop_reason: [spin] }\n`,
      );
    write('{ steps: 30, max_rounds: 5, max_cycle: 4 }');
    const { spec } = loadBudgets(file);
    expect([spec.grid.max_steps, spec.grid.max_rounds, spec.grid.max_cycle, spec.grid.near_duplicate]).toEqual([
      [30],
      [5],
      [4],
      undefined,
    ]);
    write('{ max_cycle: 0 }');
    expect(() => loadBudgets(file)).toThrow(`${file}: limits.max_cycle: Too small: expected number to be >=1`);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('meta.json checks each limit of the grid by its rule', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-meta-'));
    const meta = JSON.parse(fs.readFileSync(path.join(ROOT, 'results', 'reference', 'meta.json'), 'utf8'));
    const write = (grid: object) => fs.writeFileSync(path.join(dir, 'meta.json'), JSON.stringify({ ...meta, grid }));
    write({ ...gridOf(), max_steps: [0] });
    expect(() => loadMeta(dir)).toThrow(/grid\.max_steps\[0\]/);
    write({ ...gridOf(), near_duplicate: [1.5] });
    expect(() => loadMeta(dir)).toThrow(/grid\.near_duplicate\[0\]: Too big/);
    write({ ...gridOf(), max_cycle: [4] });
    expect(loadMeta(dir).grid.max_cycle).toEqual([4]);
    write(gridOf());
    expect(loadMeta(dir).grid.max_steps).toEqual([12]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the CSV has a column per limit, and a detector column only when the run had it', () => {
    const [plan] = expandSweep(specOf(['downloads-reorg'], { ...gridOf(), near_duplicate: [0.98] }));
    const row = runRow({ settings: plan!.settings } as Parameters<typeof runRow>[0]);
    expect(row.max_rounds).toBe('off');
    expect(row.near_duplicate).toBe(0.98);
    expect('max_cycle' in row).toBe(false);
  });
});
