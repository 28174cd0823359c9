import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../src/contracts/errors.ts';
import { evaluateAssertions } from '../src/gate/assertions.ts';
import { loadBudgets } from '../src/gate/load-budgets.ts';
import { ConfigError } from '../src/contracts/errors.ts';
import { wilson } from '../src/stats/binomial.ts';
import type { RunRecord } from '../src/contracts/records.ts';
import { QUICK_SUM, tempDir, writeBudgets } from './gate-helpers.ts';

const run = (over: Partial<RunRecord>): RunRecord =>
  ({
    scenario: 's',
    stop_reason: 'done',
    steps: 4,
    calls: 4,
    input_tokens: 1000,
    output_tokens: 200,
    cost_usd: 0.001,
    success: true,
    ...over,
  }) as RunRecord;

describe('success rate judged on the Wilson 95% lower bound', () => {
  it('does not let 3 lucky runs pass a 0.9 bar, but 40 successes do', () => {
    // n/(n + z²) = 0.438503 at z = Φ⁻¹(0.975); printed rounded down, so a bound never reads higher than the one judged.
    expect(wilson(3, 3).lo).toBeCloseTo(0.438503, 6);
    expect(wilson(40, 40).lo).toBeGreaterThan(0.9);
    const three = evaluateAssertions('s', { success_rate: { min: 0.9 } }, [run({}), run({}), run({})]);
    expect(three).toMatchObject([
      { pass: false, name: 'success_rate ≥ 0.9', measured: '3/3 (95% lower bound 0.438)', limit: '≥ 0.9' },
    ]);
    const forty = evaluateAssertions(
      's',
      { success_rate: { min: 0.9 } },
      Array.from({ length: 40 }, () => run({})),
    );
    expect(forty[0]!.pass).toBe(true);
  });
});

describe('assertions', () => {
  const runs = [
    run({ steps: 3, cost_usd: 0.001 }),
    run({ steps: 9, cost_usd: 0.003, stop_reason: 'max_steps', success: false }),
    run({ steps: 5, cost_usd: 0.002 }),
  ];

  it('checks stop reasons, maxima, means and p95 against their limits, naming what was measured', () => {
    const v = evaluateAssertions(
      's',
      { stop_reason: ['done'], steps: { max: 8, mean: 6 }, cost_usd: { p95: 0.01 }, input_tokens: { mean: 999 } },
      runs,
    );
    const by = Object.fromEntries(v.map((x) => [x.name, x]));
    expect(by['stop_reason in [done]']).toMatchObject({
      pass: false,
      measured: '2/3 runs in the list; 1 ended with max_steps',
    });
    expect(by['steps max ≤ 8']).toMatchObject({ pass: false, measured: '9' });
    expect(by['steps mean ≤ 6']).toMatchObject({ pass: true, measured: '5.7' });
    expect(by['cost_usd p95 ≤ $0.010']).toMatchObject({ pass: true });
    expect(by['input_tokens mean ≤ 999']).toMatchObject({ pass: false, measured: '1,000' });
    expect(by['steps max ≤ 8']!.message).toBe('s: steps max ≤ 8 breached: measured 9 over 3 run(s)');
  });

  it('fails every budget of a scenario that has no runs (a budget is never passed by default)', () => {
    const v = evaluateAssertions('s', { stop_reason: ['done'], steps: { max: 8 }, success_rate: { min: 0.5 } }, []);
    expect(v.map((x) => x.pass)).toEqual([false, false, false]);
  });
});

describe('budgets.yaml', () => {
  const dir = tempDir();
  const load = (yaml: string) => loadBudgets(writeBudgets(dir, yaml));
  const error = (yaml: string) => {
    try {
      load(yaml);
    } catch (e) {
      expect(e).toBeInstanceOf(UsageError);
      return (e as Error).message;
    }
    throw new Error('expected a UsageError');
  };
  const file = path.join(dir, 'budgets.yaml');

  it('a bad field is a ConfigError that carries the file and the field, not only text', () => {
    let caught: unknown;
    try {
      load('limits: { steps: 2.5 }\nscenarios:\n  - scenario: perfectionist\n    assertions: {}\n');
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect(caught).toMatchObject({ file, field: 'limits.steps' });
    expect((caught as ConfigError).problem).toBe('Invalid input');
  });

  it('overrides the scenario prompt inline or from a file relative to the budgets file, and maps limits onto the sweep', () => {
    fs.writeFileSync(path.join(dir, 'prompt.md'), 'A new system prompt under test.\n');
    const b = load(`
model: sim
repeats: 3
seed: 7
limits: { steps: 6, max_cost: 0.01, max_tokens: off }
max_regression: { cost: 10%, success: 0.05 }
scenarios:
  - scenario: ${QUICK_SUM}
    system_file: prompt.md
    assertions: { steps: { max: 8 } }
  - scenario: tiny-agent-sum-of-squares
    id: tiny-b
    goal: Sum the squares of 1..100.
    max_regression: { cost: 20% }
    assertions: { stop_reason: [done] }
`);
    expect(b.spec.scenarios.map((s) => [s.id, s.agent === 'react' ? s.system.trim() : '', s.goal])).toEqual([
      [
        'quick-sum',
        'A new system prompt under test.',
        'Compute the sum of squares of the integers from 1 to 100 and verify the result.',
      ],
      ['tiny-b', expect.stringContaining('careful assistant'), 'Sum the squares of 1..100.'],
    ]);
    expect(b.spec.grid.max_steps).toEqual([6]);
    expect(b.spec.grid.max_cost_usd).toEqual([0.01]);
    expect(b.spec.grid.max_tokens).toEqual([null]);
    expect([b.spec.repeat, b.spec.seed]).toEqual([3, 7]);
    expect(b.checks.map((c) => c.maxRegression)).toEqual([
      { cost: 0.1, success: 0.05 },
      { cost: 0.2, success: 0.05 },
    ]);
  });

  it.each([
    [
      'an unknown field',
      'scenarios:\n  - scenario: perfectionist\n    assertions: { stepz: { max: 3 } }\n',
      /scenarios\[0\]\.assertions: unknown field\(s\) 'stepz'/,
    ],
    [
      'a bad limit',
      'limits: { steps: 2.5 }\nscenarios:\n  - scenario: perfectionist\n    assertions: {}\n',
      /limits\.steps/,
    ],
    [
      'an empty bound',
      'scenarios:\n  - scenario: perfectionist\n    assertions: { cost_usd: {} }\n',
      /scenarios\[0\]\.assertions\.cost_usd: give at least one/,
    ],
    [
      'a bad percentage',
      'max_regression: { cost: ten }\nscenarios:\n  - scenario: perfectionist\n    assertions: {}\n',
      /max_regression\.cost/,
    ],
    ['no scenarios', 'scenarios: []\n', /scenarios: name at least one scenario/],
    [
      'an unknown model',
      'model: gpt5\nscenarios:\n  - scenario: perfectionist\n    assertions: {}\n',
      /budgets\.yaml: model: unknown model 'gpt5'/,
    ],
    [
      'an unknown scenario',
      'scenarios:\n  - scenario: nope\n    assertions: {}\n',
      /scenarios\[0\]\.scenario: unknown scenario 'nope'/,
    ],
    [
      'a missing prompt file',
      'scenarios:\n  - scenario: perfectionist\n    system_file: missing.md\n    assertions: {}\n',
      /scenarios\[0\]\.system_file: cannot read missing\.md \(ENOENT\)/,
    ],
    [
      'system and system_file',
      'scenarios:\n  - scenario: perfectionist\n    system: a\n    system_file: b.md\n    assertions: {}\n',
      /scenarios\[0\]\.system_file: give system or system_file/,
    ],
    [
      'a success rate without a check',
      'scenarios:\n  - scenario: seed-calibrated\n    assertions: { success_rate: { min: 0.5 } }\n',
      /scenarios\[0\]\.assertions\.success_rate: scenario 'seed-calibrated' has no check/,
    ],
    [
      'a stop reason not in the closed set (a typo)',
      'scenarios:\n  - scenario: perfectionist\n    assertions: { stop_reason: [don] }\n',
      /scenarios\[0\]\.assertions\.stop_reason\[0\]: Invalid option: expected one of "done"\|"max_steps"/,
    ],
    [
      'every length brake off (named as budgets fields, not as flags)',
      'limits: { steps: off, max_cost: off, timeout: off }\nscenarios:\n  - scenario: perfectionist\n    assertions: {}\n',
      /keep at least one of limits\.steps, limits\.max_cost, limits\.timeout, limits\.max_tokens, limits\.max_calls, limits\.max_rounds on$/,
    ],
    [
      'a scenario twice',
      'scenarios:\n  - scenario: perfectionist\n    assertions: {}\n  - scenario: perfectionist\n    assertions: {}\n',
      /scenarios\[1\]: scenario 'perfectionist' is named twice/,
    ],
  ])('rejects %s, naming the file and the field', (_what, yaml, pattern) => {
    const message = error(yaml);
    expect(message.startsWith(`${file}: `)).toBe(true);
    expect(message).toMatch(pattern);
  });
});
