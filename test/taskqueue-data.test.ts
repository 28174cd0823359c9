import { describe, expect, it } from 'vitest';
import { UsageError } from '../src/contracts/errors.ts';
import { TokenCounter } from '../src/meter/tokens.ts';
import type { ChatMessage } from '../src/contracts/chat.ts';
import { loadProfile, Profile } from '../src/sim/profile.ts';
import { SimModel } from '../src/sim/sim-model.ts';
import { ScenarioSchema } from '../src/scenario/schema.ts';
import { parseYaml } from '../src/scenario/yaml-file.ts';
import { writeSections } from '../src/contracts/taskqueue-format.ts';

const TQ = `id: t
description: d
agent: taskqueue
goal: g
prompts: { execute: e, create: c, prioritize: p, summarize: s }
initial_tasks: [one]
profile: babyagi-converging
`;

describe('scenario schema: taskqueue and react stay strict', () => {
  it('reads a taskqueue scenario with per-role models', () => {
    const s = parseYaml(`${TQ}models: { execute: sim:babyagi-converging }\n`, 'x.yaml', ScenarioSchema);
    expect(s.agent).toBe('taskqueue');
    expect(s.agent === 'taskqueue' && s.models).toEqual({ execute: 'sim:babyagi-converging' });
  });

  it.each([
    ['an unknown field', `${TQ}queue_cap: 3\n`, /x\.yaml: .*unknown field\(s\) 'queue_cap'/],
    ['a react field', `${TQ}system: hi\n`, /unknown field\(s\) 'system'/],
    ['an unknown role model', `${TQ}models: { act: sim }\n`, /models: unknown field\(s\) 'act'/],
    [
      'no initial task',
      TQ.replace('initial_tasks: [one]', 'initial_tasks: []'),
      /initial_tasks: give at least one task/,
    ],
    [
      'a tool',
      `${TQ}tools: [{ name: run_python, kind: python }]\n`,
      /tools: the task queue's execution role uses no tools yet/,
    ],
    ['a check', `${TQ}check: { expected: "42" }\n`, /check: a task-queue run has no final answer to check/],
    ['a missing prompt', TQ.replace(', summarize: s', ''), /prompts\.summarize/],
  ])('rejects %s, naming the file and field', (_, text, msg) => {
    expect(() => parseYaml(text, 'x.yaml', ScenarioSchema)).toThrow(UsageError);
    expect(() => parseYaml(text, 'x.yaml', ScenarioSchema)).toThrow(msg);
  });

  it('keeps react the default agent, and rejects taskqueue fields on it', () => {
    const react = 'id: r\ndescription: d\nsystem: s\ngoal: g\nprofile: tiny-agent\n';
    expect(parseYaml(react, 'r.yaml', ScenarioSchema).agent).toBe('react');
    expect(() => parseYaml(`${react}initial_tasks: [a]\n`, 'r.yaml', ScenarioSchema)).toThrow(
      /unknown field\(s\) 'initial_tasks'/,
    );
  });
});

describe('profiles', () => {
  it('need a ReAct behaviour or a taskqueue section', () => {
    const r = Profile.safeParse({ id: 'p', description: 'd' });
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).toContain('a ReAct behaviour, a taskqueue section, or both');
  });

  it('reject an unknown field in the taskqueue section', () => {
    const r = Profile.safeParse({ id: 'p', description: 'd', taskqueue: { create: { tasks: ['a'], explode: true } } });
    expect(r.success).toBe(false);
  });
});

function sim(profile: string) {
  return new SimModel(`sim:${profile}`, loadProfile(profile), new TokenCounter(), { promptCache: false });
}
const req = (role: string, sections: Record<string, string>, seed = 1) => ({
  model: 'sim',
  seed,
  messages: [
    { role: 'system', name: role, content: 'prompt' },
    { role: 'user', content: writeSections(sections) },
  ] as ChatMessage[],
});

describe('simulated task-queue roles: stateless, deterministic, data-driven', () => {
  const create = (round: number, history = '(none)', seed = 1) =>
    req(
      'create',
      {
        Round: String(round),
        Goal: 'g',
        'Results so far': history,
        'Last task': 'Read the delivery terms of each supplier',
        'Last result': 'r',
        'Current queue': '- Collect the price lists of the three milk suppliers',
      },
      seed,
    );

  it('answers the same request the same way, in any order, and differently for another seed', () => {
    const m = sim('babyagi-queue-explosion');
    const a = m.respond(create(2));
    m.respond(create(3));
    expect(m.respond(create(2))).toEqual(a);
    expect(sim('babyagi-queue-explosion').respond(create(2))).toEqual(a);
    const seeds = new Set([1, 2, 3, 4, 5].map((s) => m.respond(create(2, '(none)', s)).message.content));
    expect(seeds.size).toBeGreaterThan(1);
  });

  it('a converging creator stops proposing after its round', () => {
    expect(sim('babyagi-converging').respond(create(3)).message.content).toBe('No new tasks.');
  });

  it('a crowded history makes the creator redo and twin tasks', () => {
    const m = sim('babyagi-long-result');
    const long = Array.from({ length: 3100 }, () => 'word').join(' ');
    const lines = (h: string) =>
      [1, 2, 3, 4, 5, 6, 7, 8].flatMap((s) => m.respond(create(5, h, s)).message.content!.split('\n'));
    const redo = (ls: string[]) => ls.filter((l) => l.startsWith('- Read the delivery terms of each supplier')).length;
    expect(redo(lines(long))).toBeGreaterThan(redo(lines('(none)')));
    expect(lines(long).length).toBeGreaterThan(lines('(none)').length);
  });

  it("writes an over-long execution result at the profile's round", () => {
    const m = sim('babyagi-long-result');
    const exec = (round: number) =>
      m.respond(req('execute', { Round: String(round), Goal: 'g', 'Results so far': '(none)', 'Your task': 't' }));
    expect(exec(3).message.content!.split(' ').length).toBeGreaterThan(5000);
    expect(exec(2).message.content!.split(' ').length).toBeLessThan(400);
  });

  it('a profile without a taskqueue section refuses the roles by name', () => {
    expect(() => sim('tiny-agent').respond(create(1))).toThrow(
      "simulated profile 'tiny-agent' has no taskqueue section, so it cannot play the 'create' role",
    );
  });
});
