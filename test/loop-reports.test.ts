import { describe, expect, it } from 'vitest';
import type { ReflectionRecord } from '../src/agents/reflection.ts';
import type { RunRecord, StepRecord } from '../src/runner/records.ts';
import { SEED_LIMITS, type Settings } from '../src/runner/settings.ts';
import { contextRows, CumulativeCurves, fitLinearQuadratic } from '../src/report/context-savings.ts';
import { contextFindings, reflectionFindings, shownK } from '../src/report/loop-findings.ts';
import { passHatK, stabilityRows } from '../src/report/stability.ts';

const settings = (o: Partial<Settings>): Settings => ({
  scenario: 's',
  model: 'sim',
  limits: SEED_LIMITS,
  reflection: 'off',
  max_reflections: 2,
  context: 'full',
  price: { model: 'gpt-4o-mini', input_per_1m: 0.15, cached_input_per_1m: 0.075, output_per_1m: 0.6 },
  prompt_cache: false,
  max_output_tokens: 1024,
  seed: 1,
  repeat: 0,
  agent: {},
  ...o,
});

function run(config: string, s: Partial<Settings>, o: { success: boolean; answers?: boolean[]; tokens?: number; cost?: number; critiques?: number; reopens?: number; summaries?: number; repeat?: number }): RunRecord {
  const reflection: ReflectionRecord = { mode: s.reflection ?? 'off', critiques: o.critiques ?? 0, step_critiques: 0, reopens: o.reopens ?? 0, unparsed: 0, max_reached: false, answers: o.answers ?? [o.success] };
  return {
    run_id: `${config}_${o.repeat ?? 0}`,
    config_id: config,
    scenario: 's',
    agent: 'react',
    settings: settings({ ...s, repeat: o.repeat ?? 0 }),
    stop_reason: 'done',
    stop_detail: '',
    stop_step: 3,
    steps: 3,
    calls: 3 + (o.critiques ?? 0),
    rounds: 0,
    input_tokens: o.tokens ?? 1000,
    output_tokens: 0,
    cached_tokens: 0,
    cost_usd: o.cost ?? 0.001,
    elapsed_ms: 0,
    answer: 'x',
    success: o.success,
    started_at: '',
    finished_at: '',
    extra: { reflection, context: { strategy: s.context ?? 'full', summaries: o.summaries ?? 0 } },
  };
}

describe('pass^k', () => {
  it('is C(c,k)/C(n,k): all k trials drawn from the n runs succeed', () => {
    expect(passHatK(10, 10, 10)).toBe(1);
    expect(passHatK(15, 20, 1)).toBeCloseTo(0.75);
    expect(passHatK(15, 20, 2)).toBeCloseTo((15 * 14) / (20 * 19));
    expect(passHatK(15, 20, 16)).toBe(0);
    expect(passHatK(3, 4, 5)).toBeNaN();
    expect(shownK(20)).toEqual([1, 5, 20]);
    expect(shownK(3)).toEqual([1, 3]);
  });
});

describe('stability rows', () => {
  const runs = [
    // off: 3 of 4 right
    ...[true, true, true, false].map((success, repeat) => run('off', {}, { success, repeat, tokens: 1000, cost: 0.001 })),
    // final: one right→wrong flip, one wrong→right catch
    run('final', { reflection: 'final' }, { success: false, answers: [true, false], repeat: 0, tokens: 3000, cost: 0.003, critiques: 1, reopens: 1 }),
    run('final', { reflection: 'final' }, { success: true, answers: [true], repeat: 1, tokens: 2000, cost: 0.002, critiques: 1 }),
    run('final', { reflection: 'final' }, { success: true, answers: [true], repeat: 2, tokens: 2000, cost: 0.002, critiques: 1 }),
    run('final', { reflection: 'final' }, { success: true, answers: [false, true], repeat: 3, tokens: 3000, cost: 0.003, critiques: 2, reopens: 1 }),
  ];

  it('counts success, pass^k, answer changes and the cost against reflection off', () => {
    const [off, final] = stabilityRows(runs);
    expect(off).toMatchObject({ reflection: 'off', successes: 3, right_to_wrong: 0, wrong_to_right: 0, baseline_config: null, cost_ratio: 1 });
    expect(off!.pass_hat_k).toEqual([0.75, 0.5, 0.25, 0]);
    expect(final).toMatchObject({ reflection: 'final', successes: 3, first_correct: 3, right_to_wrong: 1, wrong_to_right: 1, baseline_config: 'off', critiques_mean: 1.25, reopens_mean: 0.5 });
    expect(final!.tokens_ratio).toBeCloseTo(2.5);
    expect(final!.cost_ratio).toBeCloseTo(2.5);
  });

  it('says it in words', () => {
    const text = reflectionFindings(stabilityRows(runs)).join('\n');
    expect(text).toMatch(/final: success 3\/4 \(pass\^1 0\.75, pass\^4 0\.00\); \$0\.0025 per run — ×2\.5 the tokens and ×2\.5 the cost of reflection off; critique turned 1 right first answer\(s\) wrong and 1 wrong one\(s\) right/);
    expect(reflectionFindings(stabilityRows(runs.slice(0, 4)))).toEqual([]); // nothing to say without reflection
  });
});

describe('context savings', () => {
  it('fits a·N + b·N² exactly on a quadratic', () => {
    const pts = Array.from({ length: 30 }, (_, i) => ({ n: i + 1, y: 200 * (i + 1) + 300 * (i + 1) ** 2 }));
    const fit = fitLinearQuadratic(pts)!;
    expect(fit.a).toBeCloseTo(200, 6);
    expect(fit.b).toBeCloseTo(300, 6);
    expect(fit.r2).toBeCloseTo(1, 9);
    expect(fitLinearQuadratic([{ n: 3, y: 9 }])).toBeNull();
  });

  it('builds cumulative curves per strategy, summaries counted at their step, and the savings against full', () => {
    const curves = new CumulativeCurves();
    const step = (config: string, context: string, runId: string, n: number, cum: number, role: StepRecord['role'] = 'act') =>
      curves.add({ config_id: config, run_id: runId, step: n, role, cum_input_tokens: cum, input_tokens: 0, settings: settings({ context }) } as StepRecord);
    for (const r of ['a', 'b']) {
      [100, 300, 600, 1000].forEach((cum, i) => step('full', 'full', r, i + 1, cum));
      [100, 300, 500, 700].forEach((cum, i) => step('win', 'window:1', r, i + 1, cum));
    }
    step('win', 'window:1', 'a', 2, 350, 'summarize'); // a later call at the same step raises that step's total
    const points = curves.points();
    expect(points.filter((p) => p.config_id === 'win').map((p) => p.cum_input_tokens)).toEqual([100, 325, 500, 700]);
    const runs = [
      run('full', {}, { success: true, tokens: 1000, cost: 0.01 }),
      run('win', { context: 'window:1' }, { success: true, tokens: 700, cost: 0.008, summaries: 0 }),
    ];
    const [full, win] = contextRows(runs, points, new Map([['full', 400], ['win', 200]]));
    expect(full).toMatchObject({ input_tokens_saved: null, baseline_config: null, max_call_input_tokens: 400 });
    expect(win).toMatchObject({ baseline_config: 'full', max_call_input_tokens: 200 });
    expect(win!.input_tokens_saved).toBeCloseTo(0.3);
    expect(win!.cost_saved).toBeCloseTo(0.2);
    expect(full!.fit!.b).toBeGreaterThan(win!.fit!.b);
    expect(contextFindings([full!, win!])[1]).toMatch(/^win: saves 30% of the input tokens and saves 20% of the cost against full context/);
  });
});

describe('the loop reports of a results directory', () => {
  it('writes the CSVs, the Vega-Lite specs and rendered SVG charts, from the records alone', async () => {
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const { buildLoopReports } = await import('../src/report/loop-reports.ts');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-loop-'));
    const runs = [
      ...[0, 1].map((repeat) => run('s reflection=off context=full', {}, { success: true, repeat })),
      ...[0, 1].map((repeat) => run('s reflection=final context=window:2', { reflection: 'final', context: 'window:2' }, { success: repeat === 0, answers: [true, repeat === 0], repeat, tokens: 1800, cost: 0.002 })),
    ];
    const steps = runs.flatMap((r) =>
      [1, 2, 3].map((n) => ({ run_id: r.run_id, config_id: r.config_id, step: n, role: 'act', input_tokens: 100 * n, cum_input_tokens: r.settings.context === 'full' ? 100 * n * n : 150 * n, settings: r.settings })),
    );
    fs.writeFileSync(path.join(dir, 'runs.jsonl'), runs.map((r) => JSON.stringify(r)).join('\n') + '\n');
    fs.writeFileSync(path.join(dir, 'steps.jsonl'), steps.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const built = await buildLoopReports(dir, runs);
    for (const f of ['stability.csv', 'pass-hat-k.csv', 'context.csv', 'context-curves.csv', 'charts/reflection-cost.vl.json', 'charts/context-cumulative-input.svg'])
      expect(fs.existsSync(path.join(dir, f)), f).toBe(true);
    expect(fs.readFileSync(path.join(dir, 'pass-hat-k.csv'), 'utf8')).toContain('s reflection=final context=window:2,final,2,0');
    const svg = fs.readFileSync(path.join(dir, 'charts/context-cumulative-input.svg'), 'utf8');
    expect(svg).toMatch(/<path/);
    expect(svg).toContain('a = ');
    expect(fs.readFileSync(path.join(dir, 'charts/reflection-cost.svg'), 'utf8')).toContain('1/2 right');
    expect(built.findings.some((f) => f.includes('success 1/2 (pass^1 0.50, pass^2 0.00)'))).toBe(true);
  });
});
