import { describe, expect, it } from 'vitest';
import { parseVerdict } from '../src/agents/reflection.ts';
import type { ReflectionRecord } from '../src/contracts/records.ts';
import { TokenCounter } from '../src/meter/tokens.ts';
import { judge } from '../src/sim/critic.ts';
import { loadProfile, Profile } from '../src/sim/profile.ts';
import { rng } from '../src/sim/rng.ts';
import { SimModel } from '../src/sim/sim-model.ts';
import { oneRun, tempYaml } from './support/one-run.ts';

// A scripted scenario (no python) whose right answer is 42; the profile's wrong answer says 41.
const scenario = tempYaml(
  'critic-probe',
  `id: critic-probe
description: One lookup, then an answer the check can tell right from wrong.
system: Look the value up, then answer.
goal: What is the value?
tools:
  - name: lookup
    kind: scripted
    description: Look the value up.
    result_tokens: 20
check:
  expected: "42"
profile: tiny-agent
`,
);

function profile(critic: Record<string, number>, errorRate: number): string {
  const lines = Object.entries(critic).map(([k, v]) => `  ${k}: ${v}`);
  return tempYaml(
    'probe',
    `id: probe
description: Looks up once, answers 42 (or 41 when wrong).
behaviour: converge
steps_to_done: { fixed: 2 }
actions:
  - tool: lookup
    args: { key: "value {step}" }
answer: "The value is 42."
wrong_answer: "The value is 41."
answer_error_rate: ${errorRate}
critic:
${lines.join('\n')}
`,
  );
}

const reflectionOf = (r: { record: { extra?: Record<string, unknown> } }) =>
  r.record.extra!.reflection as ReflectionRecord;

describe('the critic verdict', () => {
  it.each([
    ['APPROVE: fine', 'approve'],
    ['**REVISE** — the index is off', 'revise'],
    ['  approve', 'approve'],
    ['Looks good to me', null],
    [null, null],
  ] as const)('%j → %s', (text, verdict) => {
    expect(parseVerdict(text)).toBe(verdict);
  });
});

describe("the simulated critic's effects", () => {
  it('approves a correct answer: one critique, nothing reopened, success kept', async () => {
    const run = await oneRun({ scenario, model: `sim:${profile({ approve_correct: 1 }, 0)}`, reflection: 'final' });
    expect(run.record.success).toBe(true);
    expect(reflectionOf(run)).toMatchObject({ critiques: 1, reopens: 0, answers: [true] });
    const reflect = run.steps.filter((s) => s.role === 'reflect');
    expect(reflect).toHaveLength(1);
    expect(reflect[0]!.input_tokens).toBeGreaterThan(0);
    expect(reflect[0]!.cost_usd).toBeGreaterThan(0);
  });

  it('flips a correct answer to a wrong one when it reopens with a flip objection', async () => {
    const run = await oneRun({
      scenario,
      model: `sim:${profile({ approve_correct: 0, flip_correct: 1 }, 0)}`,
      reflection: 'final',
      maxReflections: 1,
    });
    expect(reflectionOf(run)).toMatchObject({ critiques: 1, reopens: 1, max_reached: true, answers: [true, false] });
    expect(run.record.stop_reason).toBe('done');
    expect(run.record.answer).toMatch(/41/);
    expect(run.record.success).toBe(false);
  });

  it('reopens a correct answer without flipping it (nitpick): the revision stays correct and costs a step', async () => {
    const off = await oneRun({
      scenario,
      model: `sim:${profile({ approve_correct: 0, flip_correct: 0 }, 0)}`,
      reflection: 'off',
    });
    const run = await oneRun({
      scenario,
      model: `sim:${profile({ approve_correct: 0, flip_correct: 0 }, 0)}`,
      reflection: 'final',
      maxReflections: 1,
    });
    expect(reflectionOf(run).answers).toEqual([true, true]);
    expect(run.record.success).toBe(true);
    expect(run.record.steps).toBe(off.record.steps + 2); // one revision action, one new answer
    expect(run.record.input_tokens).toBeGreaterThan(2 * off.record.input_tokens);
  });

  it('catches a wrong answer and the revision is correct', async () => {
    const run = await oneRun({
      scenario,
      model: `sim:${profile({ catch_wrong: 1, approve_correct: 1 }, 1)}`,
      reflection: 'final',
    });
    expect(reflectionOf(run)).toMatchObject({ critiques: 2, reopens: 1, answers: [false, true] });
    expect(run.record.success).toBe(true);
  });

  it('misses a wrong answer when it does not catch it', async () => {
    const run = await oneRun({ scenario, model: `sim:${profile({ catch_wrong: 0 }, 1)}`, reflection: 'final' });
    expect(reflectionOf(run)).toMatchObject({ critiques: 1, reopens: 0, answers: [false] });
    expect(run.record.success).toBe(false);
  });

  it('with reflection off makes no critique call but records the answer', async () => {
    const run = await oneRun({
      scenario,
      model: `sim:${profile({ approve_correct: 0, flip_correct: 1 }, 0)}`,
      reflection: 'off',
    });
    expect(run.steps.some((s) => s.role === 'reflect')).toBe(false);
    expect(reflectionOf(run)).toMatchObject({ critiques: 0, answers: [true] });
    expect(run.record.success).toBe(true);
  });

  it('every-step critiques each action and feeds the note back to the agent', async () => {
    const run = await oneRun({
      scenario,
      model: `sim:${profile({ approve_correct: 1 }, 0)}`,
      reflection: 'every-step',
    });
    const r = reflectionOf(run);
    expect(r.step_critiques).toBe(1); // one action before the answer
    expect(r.critiques).toBe(1);
    expect(run.steps.filter((s) => s.role === 'reflect')).toHaveLength(2);
    const notes = run.messages.filter((m) => m.role === 'user' && m.name === 'critic');
    expect(notes).toHaveLength(1);
    expect(notes[0]!.content).toMatch(/^Step 1 review:/);
  });

  it('reopens at most --max-reflections times', async () => {
    const run = await oneRun({
      scenario,
      model: `sim:${profile({ approve_correct: 0, flip_correct: 0 }, 0)}`,
      reflection: 'final',
      maxReflections: 3,
    });
    expect(reflectionOf(run)).toMatchObject({ reopens: 3, critiques: 3, max_reached: true });
    expect(reflectionOf(run).answers).toHaveLength(4);
  });

  it('a critique refused by a brake ends the run with that brake, without an answer', async () => {
    // act, act (answer), then the critique would be call 3.
    const run = await oneRun({
      scenario,
      model: `sim:${profile({ approve_correct: 1 }, 0)}`,
      reflection: 'final',
      maxCalls: 2,
    });
    expect(run.record.stop_reason).toBe('max_calls');
    expect(run.record.answer).toBeNull();
    expect(run.record.success).toBe(false);
  });

  it('draws its verdicts with the profile probabilities', () => {
    const p = Profile.parse({
      ...loadProfile('reflection-reopens'),
      critic: { approve_correct: 0.7, flip_correct: 0.5, catch_wrong: 0.6 },
    });
    const n = 4000;
    let approved = 0;
    let flipped = 0;
    let caught = 0;
    for (let i = 0; i < n; i++) {
      const right = judge(p, false, rng(i, 'right'));
      if (right.kind === 'approve') approved++;
      else if (right.objection === 'flip') flipped++;
      if (judge(p, true, rng(i, 'wrong')).kind === 'revise') caught++;
    }
    expect(approved / n).toBeCloseTo(0.7, 1);
    expect(flipped / n).toBeCloseTo(0.3 * 0.5, 1);
    expect(caught / n).toBeCloseTo(0.6, 1);
  });

  it('is stateless: the same request gets the same critique', () => {
    const model = new SimModel('sim:reflection-reopens', loadProfile('reflection-reopens'), new TokenCounter(), {
      promptCache: false,
    });
    const request = {
      model: 'sim',
      seed: 7,
      messages: [
        { role: 'system' as const, name: 'reflect', content: 'critic' },
        { role: 'user' as const, content: 'goal' },
        { role: 'assistant' as const, content: 'Answer 3: The 30th Fibonacci number is 832040.' },
        { role: 'user' as const, content: 'Review the final answer above.' },
      ],
    };
    const a = model.respond(request).message.content;
    expect(a).toMatch(/^(APPROVE|REVISE):/);
    expect(model.respond(structuredClone(request)).message.content).toBe(a);
  });
});
