import { describe, expect, it } from 'vitest';
import { admitTasks, capQueue, parsePriority } from '../src/agents/queue/constraints.ts';
import { listItems, parseCreated, readSections, writeSections } from '../src/contracts/taskqueue-format.ts';
import { closest, similarity } from '../src/agents/queue/similarity.ts';
import { maxRoundsBrake } from '../src/brakes/max-rounds.ts';
import type { RunState } from '../src/brakes/brake.ts';
import { truncateTokens } from '../src/meter/truncate.ts';
import { countText } from '../src/meter/tokens.ts';

describe('string similarity', () => {
  it('ignores case, punctuation and spacing; 1 for equal, low for unrelated', () => {
    expect(similarity('Check prices!', 'check   prices')).toBe(1);
    expect(
      similarity('Collect owner reviews from coffee forums', 'Collect owner reviews from coffee forums again'),
    ).toBeGreaterThan(0.8);
    expect(similarity('Collect owner reviews', 'Estimate yearly burr cost')).toBeLessThan(0.3);
    expect(closest('Check retail prices', ['Draft the intro', 'Check retail prices at shops'])!.twin).toBe(
      'Check retail prices at shops',
    );
    expect(closest('x', [])).toBeNull();
  });
});

describe('the creator answer format', () => {
  it('reads tasks with and without a goal link, and "No new tasks." as none', () => {
    expect(parseCreated('- Check prices (goal: needed for the ranking)\n2. Tidy the format\n\n')).toEqual([
      { task: 'Check prices', link: 'needed for the ranking' },
      { task: 'Tidy the format', link: null },
    ]);
    expect(parseCreated('No new tasks.')).toEqual([]);
    expect(listItems('(empty)')).toEqual([]);
  });

  it('round-trips the section blocks the sim reads', () => {
    const text = writeSections({ Round: '3', Goal: 'g', 'Current queue': '- a\n- b' });
    expect(readSections(text)).toEqual({ Round: '3', Goal: 'g', 'Current queue': '- a\n- b' });
  });
});

describe('admitting created tasks', () => {
  const created = [
    { task: 'Collect owner reviews from coffee forums again', link: 'more evidence' },
    { task: 'Tidy the previous output', link: null },
    { task: 'Estimate the yearly cost of burrs', link: 'running cost' },
  ];
  const queue = ['Collect owner reviews from coffee forums'];

  it('with both constraints off, keeps everything', () => {
    expect(admitTasks(created, queue, [], { dedup: null, anchor: false }, 1)).toEqual({
      accepted: created.map((c) => c.task),
      events: [],
    });
  });

  it('dedup drops the near-twin of a queued task and logs the twin', () => {
    const r = admitTasks(created, queue, [], { dedup: 0.8, anchor: false }, 4);
    expect(r.accepted).toEqual(['Tidy the previous output', 'Estimate the yearly cost of burrs']);
    expect(r.events).toEqual([
      { round: 4, kind: 'dedup', task: created[0]!.task, twin: queue[0], similarity: expect.any(Number) },
    ]);
  });

  it('dedup also catches a redo of a task already done, and twins within one answer', () => {
    const r = admitTasks(
      [
        { task: 'Draft the intro', link: 'x' },
        { task: 'Draft the intro.', link: 'x' },
      ],
      [],
      ['Draft the intro'],
      { dedup: 0.9, anchor: false },
      2,
    );
    expect(r.accepted).toEqual([]);
    const r2 = admitTasks(
      [
        { task: 'Draft the intro', link: 'x' },
        { task: 'Draft the intro.', link: 'x' },
      ],
      [],
      [],
      { dedup: 0.9, anchor: false },
      2,
    );
    expect(r2.accepted).toEqual(['Draft the intro']);
  });

  it('goal anchoring drops a task with no stated link to the goal', () => {
    const r = admitTasks(created, queue, [], { dedup: null, anchor: true }, 2);
    expect(r.accepted).not.toContain('Tidy the previous output');
    expect(r.events).toEqual([{ round: 2, kind: 'anchor', task: 'Tidy the previous output' }]);
  });
});

describe('queue cap', () => {
  it('keeps the top N in priority order and logs the cut', () => {
    expect(capQueue(['a', 'b', 'c', 'd'], 2, 5)).toEqual({
      queue: ['a', 'b'],
      event: { round: 5, kind: 'cap', cap: 2, cut: ['c', 'd'] },
    });
    expect(capQueue(['a'], 2, 5)).toEqual({ queue: ['a'], event: null });
    expect(capQueue(['a', 'b', 'c'], null, 5).event).toBeNull();
  });
});

describe('prioritizer output validation', () => {
  const q = ['a task', 'b task', 'c task'];
  it('accepts the same tasks reordered, numbered or bulleted', () => {
    expect(parsePriority(q, '1. c task\n2. a task\n3. b task')).toEqual({
      ok: true,
      queue: ['c task', 'a task', 'b task'],
    });
    expect(parsePriority(q, '- b task\n- c task\n- a task')).toEqual({
      ok: true,
      queue: ['b task', 'c task', 'a task'],
    });
  });
  it.each([
    ['prose', 'Start with a task, then the rest.', /expected 3 task lines, got 1/],
    ['a lost task', '1. a task\n2. b task', /expected 3 task lines, got 2/],
    ['an invented task', '1. a task\n2. b task\n3. d task', /unknown task 'd task'/],
    ['a task twice', '1. a task\n2. a task\n3. b task', /unknown task 'a task'/],
  ])('rejects %s', (_, answer, reason) => {
    const r = parsePriority(q, answer);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(reason);
  });
});

describe('max_rounds brake', () => {
  const state = (rounds: number) => ({ rounds, steps: rounds }) as RunState;
  it('lets round N start while fewer than N are done, then stops with the detail', () => {
    const b = maxRoundsBrake(3);
    expect(b.beforeRound!(state(2))).toBeNull();
    expect(b.beforeRound!(state(3))).toEqual({
      reason: 'max_rounds',
      detail: 'round limit reached: 3 of 3 rounds done',
      step: 3,
      fired: { brake: 'max_rounds', value: 3, limit: 3 },
    });
    expect(b.beforeCall).toBeUndefined();
  });
});

describe('result length cap', () => {
  it('cuts to N tokens of the real tokenizer and reports the original length', () => {
    const text = 'the agent loop step cost token model '.repeat(100);
    const r = truncateTokens(text, 50);
    expect(r.truncated).toBe(true);
    expect(r.tokens).toBe(countText(text));
    expect(countText(r.text)).toBeLessThanOrEqual(50);
    expect(truncateTokens('short', 50)).toEqual({ text: 'short', tokens: 1, truncated: false });
  });
});
