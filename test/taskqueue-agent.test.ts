import { describe, expect, it } from 'vitest';
import type { QueueEvent } from '../src/agents/queue/constraints.ts';
import type { QueueState } from '../src/agents/queue/state.ts';
import type { RoundLog } from '../src/agents/queue/round-log.ts';
import { countText } from '../src/meter/tokens.ts';
import { runTq } from './taskqueue-helpers.ts';
import { callCost, loadPricing, priceFor } from '../src/meter/pricing.ts';
import { modelPrices } from '../src/runner/taskqueue-plan.ts';

const extra = (r: { record: { extra?: Record<string, unknown> } }) =>
  r.record.extra as {
    rounds: RoundLog[];
    events: QueueEvent[];
    state: QueueState;
    final_queue_length: number;
    paused?: boolean;
    resumed_at_round?: number;
  };
const eventsOf = (r: Parameters<typeof extra>[0], kind: QueueEvent['kind']) =>
  extra(r).events.filter((e) => e.kind === kind);
/** max_tokens that lets babyagi-long-result's 6,000-token page through whole (the default 1024 cuts it, as a provider would). */
const LONG_PAGE = 8192;

describe('task-queue agent: one round is execute → create → prioritize', () => {
  it('makes its calls in role order, each record carrying role and round', async () => {
    const r = await runTq('babyagi-queue-explosion', { limits: { max_rounds: 2 } });
    expect(r.steps.map((s) => `${s.round}:${s.role}`)).toEqual([
      '1:execute',
      '1:create',
      '1:prioritize',
      '2:execute',
      '2:create',
      '2:prioritize',
    ]);
    expect(r.record.steps).toBe(2); // execute calls are the agent's steps
    const { state } = extra(r);
    expect(state.results.map((x) => [x.task, x.round])).toEqual([
      ['Make a list of budget espresso grinders under 300 dollars', 1],
      [expect.any(String), 2],
    ]);
    expect(state.results[0]!.timestamp).toMatch(/^\d{4}-\d\d-\d\dT/);
    // Tokens per role agree with the step records.
    const byRole = r.record.extra!.tokens_by_role as Record<string, { calls: number; input_tokens: number }>;
    for (const role of ['execute', 'create', 'prioritize']) {
      const steps = r.steps.filter((s) => s.role === role);
      expect(byRole[role]).toMatchObject({
        calls: steps.length,
        input_tokens: steps.reduce((n, s) => n + s.input_tokens, 0),
      });
    }
  });

  it('is deterministic for a seed: the same run twice gives the same records', async () => {
    const strip = (steps: Array<{ latency_ms: number; input_tokens: number; output_tokens: number; role: string }>) =>
      steps.map((s) => [s.role, s.input_tokens, s.output_tokens, s.latency_ms]);
    const a = await runTq('babyagi-queue-explosion', { limits: { max_rounds: 4 } });
    const b = await runTq('babyagi-queue-explosion', { limits: { max_rounds: 4 } });
    expect(strip(a.steps)).toEqual(strip(b.steps));
    expect(extra(a).state.queue).toEqual(extra(b).state.queue);
  });

  it('explodes without constraints: the queue grows round after round', async () => {
    const r = await runTq('babyagi-queue-explosion', { limits: { max_rounds: 10 } });
    const lengths = extra(r).rounds.map((x) => x.queue_length);
    expect(lengths[9]!).toBeGreaterThanOrEqual(lengths[0]! + 10);
  });
});

describe('termination: whichever comes first, named in the detail', () => {
  it('queue_empty when the queue drains', async () => {
    const r = await runTq('babyagi-converging');
    expect(r.record.stop_reason).toBe('queue_empty');
    expect(r.record.stop_detail).toMatch(/queue empty after round \d+: \d+ tasks done/);
    expect(extra(r).final_queue_length).toBe(0);
  });

  it('max_rounds at the round limit, never mid-round', async () => {
    const r = await runTq('babyagi-queue-explosion', { limits: { max_rounds: 3 } });
    expect(r.record.stop_reason).toBe('max_rounds');
    expect(r.record.stop_detail).toBe('round limit reached: 3 of 3 rounds done');
    expect(r.record.rounds).toBe(3);
    expect(r.steps.at(-1)!.role).toBe('prioritize');
  });

  it('max_calls counts every role', async () => {
    const r = await runTq('babyagi-queue-explosion', { limits: { max_calls: 7 } });
    expect(r.record.stop_reason).toBe('max_calls');
    expect(r.record.calls).toBe(7);
    expect(r.record.stop_detail).toContain('7 of 7 calls');
  });

  it.each([
    ['max_cost', { max_cost_usd: 0.002 }],
    ['max_tokens', { max_tokens: 8000 }],
    ['timeout', { timeout_s: 5 }],
    ['max_steps', { max_steps: 2 }],
  ] as const)('%s: the core brakes hold the task queue too', async (reason, limits) => {
    const r = await runTq('babyagi-queue-explosion', { limits: { max_rounds: 50, ...limits } });
    expect(r.record.stop_reason).toBe(reason);
  });
});

describe('queue constraints, each switchable', () => {
  it('queue cap keeps the top N and logs what it cut', async () => {
    const r = await runTq('babyagi-queue-explosion', { agent: { queue_cap: 4 } });
    expect(Math.max(...extra(r).rounds.map((x) => x.queue_length))).toBe(4);
    const cuts = eventsOf(r, 'cap') as Array<Extract<QueueEvent, { kind: 'cap' }>>;
    expect(cuts.length).toBeGreaterThan(0);
    for (const c of cuts) expect(extra(r).rounds.find((x) => x.round === c.round)!.queue).not.toContain(c.cut[0]);
  });

  it('dedup drops near-twins, logging the dropped task and its twin', async () => {
    const off = await runTq('babyagi-queue-explosion');
    const on = await runTq('babyagi-queue-explosion', { agent: { dedup: 0.8 } });
    const drops = eventsOf(on, 'dedup') as Array<Extract<QueueEvent, { kind: 'dedup' }>>;
    expect(drops.length).toBeGreaterThan(0);
    for (const d of drops) {
      expect(d.similarity).toBeGreaterThanOrEqual(0.8);
      expect(d.twin).not.toBe('');
    }
    expect(extra(on).final_queue_length).toBeLessThan(extra(off).final_queue_length);
  });

  it('goal anchoring drops created tasks that state no link to the goal', async () => {
    const off = await runTq('babyagi-queue-explosion');
    const on = await runTq('babyagi-queue-explosion', { agent: { anchor: true } });
    const dropped = eventsOf(on, 'anchor').map((e) => (e as { task: string }).task);
    expect(dropped.length).toBeGreaterThan(0);
    const queued = new Set(extra(on).rounds.flatMap((x) => x.queue));
    for (const t of dropped) expect(queued.has(t)).toBe(false);
    expect(
      extra(off)
        .rounds.flatMap((x) => x.queue)
        .some((t) => dropped.includes(t)),
    ).toBe(true);
  });
});

describe('guardrails', () => {
  it('a prioritizer answer that does not parse keeps the old order and is logged', async () => {
    const r = await runTq('babyagi-queue-explosion', {
      model: 'sim:test/fixtures/profiles/tq-prose-prioritizer.yaml',
      limits: { max_rounds: 3 },
    });
    const falls = eventsOf(r, 'prioritize_fallback') as Array<Extract<QueueEvent, { kind: 'prioritize_fallback' }>>;
    expect(falls.length).toBe(3);
    expect(falls[0]!.reason).toMatch(/expected \d+ task lines, got 1/);
    // Old order kept: round 1's queue is the remaining initial tasks, then the created ones in the order created.
    const create1 = r.calls.find((c) => c.role === 'create' && c.round === 1)!.received!.content!;
    const created = create1.split('\n').map((l) => l.replace(/^- /, '').replace(/ \(goal: .*\)$/, ''));
    expect(extra(r).rounds[0]!.queue).toEqual(created);
  });

  it('caps an over-long execution result and logs it', async () => {
    const r = await runTq('babyagi-long-result', {
      agent: { max_result_tokens: 200 },
      limits: { max_rounds: 4 },
      max_output_tokens: LONG_PAGE,
    });
    const caps = eventsOf(r, 'result_cap') as Array<Extract<QueueEvent, { kind: 'result_cap' }>>;
    expect(caps.map((c) => c.round)).toEqual([3]);
    expect(caps[0]!.tokens).toBeGreaterThan(6000);
    expect(countText(extra(r).state.results[2]!.result)).toBeLessThanOrEqual(200);
  });

  it('without a cap the long result crowds later rounds: more twins and redone tasks (the debugging chain)', async () => {
    const capped = await runTq('babyagi-long-result', {
      agent: { max_result_tokens: 300, dedup: 0.8 },
      max_output_tokens: LONG_PAGE,
    });
    const raw = await runTq('babyagi-long-result', { agent: { dedup: 0.8 }, max_output_tokens: LONG_PAGE });
    expect(eventsOf(raw, 'dedup').length).toBeGreaterThan(eventsOf(capped, 'dedup').length);
    expect(raw.record.input_tokens).toBeGreaterThan(2 * capped.record.input_tokens);
  });

  it('compresses the history with a metered summarize call when the create prompt passes the threshold', async () => {
    const r = await runTq('babyagi-long-result', {
      agent: { compress_at: 3000 },
      limits: { max_rounds: 6 },
      max_output_tokens: LONG_PAGE,
    });
    const comp = eventsOf(r, 'compress') as Array<Extract<QueueEvent, { kind: 'compress' }>>;
    expect(comp.length).toBeGreaterThan(0);
    expect(comp[0]!.prompt_tokens).toBeGreaterThan(3000);
    const sums = r.steps.filter((s) => s.role === 'summarize');
    expect(sums.length).toBe(comp.length);
    expect(sums[0]!.cost_usd).toBeGreaterThan(0);
    // Once the long result has moved into the history, the summary brings the create prompt under the threshold.
    const afterLast = r.steps[r.steps.indexOf(sums.at(-1)!) + 1]!;
    expect(afterLast.role).toBe('create');
    expect(afterLast.input_tokens).toBeLessThan(3000);
    expect(extra(r).state.summary).toMatch(/^Summary: /);
  });

  it('a role can use its own model', async () => {
    const r = await runTq('babyagi-queue-explosion', {
      role_models: { execute: 'sim:babyagi-long-result' },
      limits: { max_rounds: 3 },
      max_output_tokens: LONG_PAGE,
    });
    const exec3 = r.steps.find((s) => s.role === 'execute' && s.round === 3)!;
    expect(exec3.output_tokens).toBeGreaterThan(6000);
    // At the default max_tokens the same page is cut, as a provider cuts it.
    const cut = await runTq('babyagi-queue-explosion', {
      role_models: { execute: 'sim:babyagi-long-result' },
      limits: { max_rounds: 3 },
    });
    expect(cut.steps.find((s) => s.role === 'execute' && s.round === 3)!.output_tokens).toBe(1024);
    const bad = await runTq('babyagi-queue-explosion', {
      role_models: { create: 'sim:tiny-agent' },
      limits: { max_rounds: 3 },
    });
    expect(bad.record.stop_reason).toBe('error');
    expect(bad.record.stop_detail).toContain("'tiny-agent' has no taskqueue section");
  });
});

describe('per-role prices', () => {
  it("bills a role with its own model at that model's price, the others at the run's", async () => {
    const gpt4o = priceFor(loadPricing(), 'gpt-4o');
    const r = await runTq('babyagi-queue-explosion', { role_prices: { create: gpt4o }, limits: { max_rounds: 2 } });
    for (const s of r.steps) {
      const price = s.role === 'create' ? gpt4o : s.settings.price;
      expect(s.cost_usd).toBeCloseTo(callCost(price, s.input_tokens, s.output_tokens, s.cached_tokens), 12);
    }
    expect(
      modelPrices(['openai:gpt-4o', 'sim:babyagi-converging', 'openai:unknown-model'], loadPricing(), 'pricing.yaml'),
    ).toEqual({ 'openai:gpt-4o': gpt4o });
  });
});

describe('pause and resume', () => {
  it('pauses after round N with the state, and resumes from an edited state', async () => {
    const paused = await runTq('babyagi-queue-explosion', { control: { pauseAt: 2 } });
    expect(paused.record.stop_reason).toBe('interrupted');
    expect(paused.record.stop_detail).toMatch(/^paused after round 2/);
    const state = extra(paused).state;
    expect(extra(paused).paused).toBe(true);
    expect(state.round).toBe(2);
    expect(state.results).toHaveLength(2);

    const edited: QueueState = { ...state, queue: ['A task a person added', ...state.queue.slice(1)] };
    const lines: string[] = [];
    const resumed = await runTq('babyagi-queue-explosion', {
      control: { resume: edited, pauseAt: 2 },
      limits: { max_rounds: 4 },
      trace: (l) => lines.push(l),
    });
    expect(resumed.record.stop_reason).toBe('max_rounds');
    expect(extra(resumed).resumed_at_round).toBe(2);
    expect(resumed.steps[0]!.round).toBe(3);
    expect(extra(resumed).state.results.map((x) => x.round)).toEqual([1, 2, 3, 4]);
    expect(extra(resumed).state.results[2]!.task).toBe('A task a person added');
    // Budgets hold across the pause: totals continue from the paused run's.
    expect(resumed.record.calls).toBe(paused.record.calls + resumed.steps.length);
    expect(lines.join('\n')).toContain('round 3: A task a person added');
  });

  it("a paused run resumed: its record is the sum of both parts' steps in every figure, cache writes included", async () => {
    // From round 3 the long result's 6,000 tokens make prompts past the 1,024 a cache write needs.
    const billed = {
      price: priceFor(loadPricing(), 'claude-sonnet-4-5'),
      prompt_cache: true,
      max_output_tokens: LONG_PAGE,
      limits: { max_rounds: 6 },
    };
    const first = await runTq('babyagi-long-result', { ...billed, control: { pauseAt: 4 } });
    const resumed = await runTq('babyagi-long-result', { ...billed, control: { resume: extra(first).state } });
    const steps = [...first.steps, ...resumed.steps];
    // Both parts wrote to the cache: the figure the saved state used to drop.
    expect(first.record.cache_write_tokens).toBeGreaterThan(0);
    expect(resumed.steps.some((s) => (s.cache_write_tokens ?? 0) > 0)).toBe(true);
    const r = resumed.record;
    expect(r.calls).toBe(steps.length);
    for (const k of [
      'input_tokens',
      'output_tokens',
      'cached_tokens',
      'cache_write_tokens',
      'reasoning_tokens',
    ] as const)
      expect(r[k], k).toBe(steps.reduce((n, s) => n + (s[k] ?? 0), 0));
    expect(r.cost_usd).toBeCloseTo(
      steps.reduce((n, s) => n + s.cost_usd, 0),
      12,
    );
  });

  it('the paused state keeps every total the run record has (cache writes, reasoning), and a resumed run carries them on', async () => {
    const first = await runTq('babyagi-queue-explosion', { control: { pauseAt: 2 } });
    // As a provider that bills cache writes and reasoning would have left it (the sim's calls here have none).
    const spent = { cache_write_tokens: 500, cache_write_1h_tokens: 7, reasoning_tokens: 40 };
    const saved: QueueState = { ...extra(first).state, totals: { ...extra(first).state.totals, ...spent } };
    const resumed = await runTq('babyagi-queue-explosion', { control: { resume: saved, pauseAt: 3 } });
    const r = resumed.record;
    expect(r.calls).toBe(first.record.calls + resumed.steps.length);
    expect(r).toMatchObject(spent);
    // Paused again: its state holds the same totals as its run record, each figure it has.
    expect(extra(resumed).paused).toBe(true);
    expect(extra(resumed).state.totals).toEqual({
      steps: r.steps,
      calls: r.calls,
      input_tokens: r.input_tokens,
      output_tokens: r.output_tokens,
      cached_tokens: r.cached_tokens,
      ...spent,
      cost_usd: r.cost_usd,
    });
  });
});
