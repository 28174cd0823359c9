import { describe, expect, it } from 'vitest';
import type { ReflectionRecord, RunRecord } from '../src/contracts/records.ts';
import { SEED_LIMITS, type Settings } from '../src/contracts/settings.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildReports } from '../src/report/build.ts';
import { contextRows, fitsByConfig } from '../src/report/stats/context.ts';
import { stepPoints } from './helpers/step-points.ts';
import { contextFindings, reflectionFindings, shownK } from '../src/report/findings/loops.ts';
import { passHatK, stabilityRows } from '../src/report/stats/reflection.ts';

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

function run(
  config: string,
  s: Partial<Settings>,
  o: {
    success: boolean;
    answers?: boolean[];
    tokens?: number;
    cost?: number;
    critiques?: number;
    reopens?: number;
    summaries?: number;
    repeat?: number;
  },
): RunRecord {
  const reflection: ReflectionRecord = {
    mode: s.reflection ?? 'off',
    critiques: o.critiques ?? 0,
    step_critiques: 0,
    reopens: o.reopens ?? 0,
    unparsed: 0,
    max_reached: false,
    answers: o.answers ?? [o.success],
  };
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
    ...[true, true, true, false].map((success, repeat) =>
      run('off', {}, { success, repeat, tokens: 1000, cost: 0.001 }),
    ),
    // final: one right→wrong flip, one wrong→right catch
    run(
      'final',
      { reflection: 'final' },
      { success: false, answers: [true, false], repeat: 0, tokens: 3000, cost: 0.003, critiques: 1, reopens: 1 },
    ),
    run(
      'final',
      { reflection: 'final' },
      { success: true, answers: [true], repeat: 1, tokens: 2000, cost: 0.002, critiques: 1 },
    ),
    run(
      'final',
      { reflection: 'final' },
      { success: true, answers: [true], repeat: 2, tokens: 2000, cost: 0.002, critiques: 1 },
    ),
    run(
      'final',
      { reflection: 'final' },
      { success: true, answers: [false, true], repeat: 3, tokens: 3000, cost: 0.003, critiques: 2, reopens: 1 },
    ),
  ];

  it('counts success, pass^k, answer changes and the cost against reflection off', () => {
    const [off, final] = stabilityRows(runs);
    expect(off).toMatchObject({
      reflection: 'off',
      successes: 3,
      right_to_wrong: 0,
      wrong_to_right: 0,
      baseline_config: null,
      cost_ratio: 1,
    });
    expect(off!.pass_hat_k).toEqual([0.75, 0.5, 0.25, 0]);
    expect(final).toMatchObject({
      reflection: 'final',
      successes: 3,
      first_correct: 3,
      right_to_wrong: 1,
      wrong_to_right: 1,
      baseline_config: 'off',
      critiques_mean: 1.25,
      reopens_mean: 0.5,
    });
    expect(final!.tokens_ratio).toBeCloseTo(2.5);
    expect(final!.cost_ratio).toBeCloseTo(2.5);
  });

  it('says it in words', () => {
    const text = reflectionFindings(stabilityRows(runs)).join('\n');
    expect(text).toMatch(
      /final: success 3\/4 \(pass\^1 0\.75, pass\^4 0\.00\); \$0\.0025 per run — ×2\.5 the tokens and ×2\.5 the cost of reflection off; critique turned 1 right first answer\(s\) wrong and 1 wrong one\(s\) right/,
    );
    expect(reflectionFindings(stabilityRows(runs.slice(0, 4)))).toEqual([]); // nothing to say without reflection
  });
});

describe('context savings', () => {
  const point = (config_id: string, step: number, cum: number) => ({ config_id, step, cum_input_tokens: cum });

  it('fits a·N + b·N² per configuration, so strategies are not mixed in one curve', () => {
    const points = stepPoints(
      Array.from({ length: 30 }, (_, i) => i + 1).flatMap((n) => [
        point('full', n, 200 * n + 300 * n * n),
        point('win', n, 2000 * n + 40 * n * n),
      ]),
    );
    const fits = fitsByConfig(points);
    expect(fits.get('full')!.a).toBeCloseTo(200, 6);
    expect(fits.get('full')!.b).toBeCloseTo(300, 6);
    expect(fits.get('win')!.a).toBeCloseTo(2000, 6);
    expect(fits.get('win')!.b).toBeCloseTo(40, 6);
  });

  it('compares each strategy with full context of the same configuration', () => {
    const points = stepPoints([1, 2, 3, 4].flatMap((n) => [point('full', n, 100 * n * n), point('win', n, 150 * n)]));
    const runs = [
      run('full', {}, { success: true, tokens: 1000, cost: 0.01 }),
      run('win', { context: 'window:1' }, { success: true, tokens: 700, cost: 0.008, summaries: 0 }),
    ];
    const [full, win] = contextRows(
      runs,
      points,
      new Map([
        ['full', 400],
        ['win', 200],
      ]),
    );
    expect(full).toMatchObject({ input_tokens_saved: null, baseline_config: null, max_call_input_tokens: 400 });
    expect(win).toMatchObject({ baseline_config: 'full', max_call_input_tokens: 200 });
    expect(win!.input_tokens_saved).toBeCloseTo(0.3);
    expect(win!.cost_saved).toBeCloseTo(0.2);
    expect(full!.fit!.b).toBeCloseTo(100);
    expect(win!.fit!.b).toBeCloseTo(0);
    expect(contextFindings([full!, win!])[1]).toMatch(
      /^win: saves 30% of the input tokens and saves 20% of the cost against full context/,
    );
  });
});

describe('the loop reports of a results directory', () => {
  it('lands in the CSVs, charts, report.html and summary.md, from the records alone', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-loop-'));
    const runs = [
      ...[0, 1].map((repeat) => run('s reflection=off context=full', {}, { success: true, repeat })),
      ...[0, 1].map((repeat) =>
        run(
          's reflection=final context=full',
          { reflection: 'final' },
          { success: repeat === 0, answers: [true, repeat === 0], repeat, tokens: 1800, cost: 0.002 },
        ),
      ),
      ...[0, 1].map((repeat) =>
        run(
          's reflection=off context=window:2',
          { context: 'window:2' },
          { success: true, repeat, tokens: 600, cost: 0.0006 },
        ),
      ),
    ];
    const steps = runs.flatMap((r) =>
      // Three calls that add up to the run's record (a report checks it), whatever the curve drawn from cum_input_tokens.
      [1, 2, 3].map((n) => ({
        run_id: r.run_id,
        config_id: r.config_id,
        scenario: 's',
        step: n,
        role: 'act',
        input_tokens: n === 1 ? r.input_tokens - 200 : 100,
        output_tokens: 0,
        cached_tokens: 0,
        cum_input_tokens: r.settings.context === 'full' ? 100 * n * n : 150 * n,
        cost_usd: n === 1 ? r.cost_usd : 0,
        cum_cost_usd: r.cost_usd,
        elapsed_ms: 0,
        settings: r.settings,
      })),
    );
    fs.writeFileSync(path.join(dir, 'runs.jsonl'), runs.map((r) => JSON.stringify(r)).join('\n') + '\n');
    fs.writeFileSync(path.join(dir, 'steps.jsonl'), steps.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const built = await buildReports(dir);
    for (const f of [
      'stability.csv',
      'pass-hat-k.csv',
      'context.csv',
      'charts/reflection-cost.svg',
      'charts/reflection-cost.png',
      'charts/context-cumulative-input.vl.json',
    ])
      expect(built.files, f).toContain(f);
    expect(fs.readFileSync(path.join(dir, 'pass-hat-k.csv'), 'utf8')).toContain(
      's reflection=final context=full,final,2,0',
    );
    const svg = fs.readFileSync(path.join(dir, 'charts/context-cumulative-input.svg'), 'utf8');
    expect(svg).toMatch(/<path/);
    expect(svg).toContain('a = ');
    expect(
      built.findings.some((f) => f.includes('s reflection=final context=full: success 1/2 (pass^1 0.50, pass^2 0.00)')),
    ).toBe(true);
    expect(
      built.findings.some((f) => f.startsWith('s reflection=off context=window:2: saves 40% of the input tokens')),
    ).toBe(true);
    const html = fs.readFileSync(path.join(dir, 'report.html'), 'utf8');
    expect(html).toContain('<section id="reflection">');
    expect(html).toContain('<section id="context">');
    expect(html).toContain('id="chart-reflection-cost"');
    const md = fs.readFileSync(path.join(dir, 'summary.md'), 'utf8');
    expect(md).toContain('### Reflection: what it costs and what it buys');
    expect(md).toContain('### Context strategies: what each saves');
  });
});
