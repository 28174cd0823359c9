import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../src/contracts/errors.ts';
import { parseContextList, parseContextSpec } from '../src/agents/context-spec.ts';
import { exchangeStarts, headLength, windowView } from '../src/agents/context.ts';
import type { ChatMessage } from '../src/contracts/chat.ts';
import { oneRun } from './support/one-run.ts';

/** A provider's rule: every tool message answers a call of an earlier assistant message in the same request, and every call is answered. */
function pairsIntact(messages: readonly ChatMessage[]): boolean {
  const open = new Set<string>();
  for (const m of messages) {
    if (m.role === 'assistant') {
      if (open.size > 0) return false; // a call left unanswered before the next turn
      for (const c of m.tool_calls ?? []) open.add(c.id);
    } else if (m.role === 'tool') {
      if (!open.delete(m.tool_call_id)) return false; // orphaned tool result
    }
  }
  return open.size === 0;
}

/** A conversation: head, then turns of an assistant message with 0–3 calls, their results, maybe feedback. */
const conversation = fc
  .array(fc.record({ calls: fc.integer({ min: 0, max: 3 }), feedback: fc.boolean() }), { maxLength: 25 })
  .map((turns) => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'system prompt' },
      { role: 'user', content: 'the goal' },
    ];
    turns.forEach((t, i) => {
      const ids = Array.from({ length: t.calls }, (_, j) => `call_${i}_${j}`);
      messages.push({
        role: 'assistant',
        content: `turn ${i}`,
        ...(ids.length
          ? {
              tool_calls: ids.map((id) => ({
                id,
                type: 'function' as const,
                function: { name: 'f', arguments: '{}' },
              })),
            }
          : {}),
      });
      for (const id of ids) messages.push({ role: 'tool', tool_call_id: id, content: `result ${id}` });
      if (t.feedback) messages.push({ role: 'user', name: 'critic', content: `note ${i}` });
    });
    return messages;
  });

describe('--context values', () => {
  it('parses full, window:K and summarize:T', () => {
    expect(parseContextSpec('full')).toEqual({ kind: 'full', param: null });
    expect(parseContextSpec('window:6')).toEqual({ kind: 'window', param: 6 });
    expect(parseContextSpec('summarize:8000')).toEqual({ kind: 'summarize', param: 8000 });
    expect(parseContextList('full, window:6,full')).toEqual(['full', 'window:6']);
  });

  it.each(['window', 'window:0', 'window:2.5', 'window:', 'summarize:10', 'summarize:x', 'last:5', ''])(
    'rejects %j naming the flag and what is accepted',
    (bad) => {
      expect(() => parseContextSpec(bad)).toThrow(UsageError);
      expect(() => parseContextSpec(bad)).toThrow(/--context: .*accepted: full, window:K/);
    },
  );
});

describe('the pairing rule: a tool call and its result are never split', () => {
  it('holds for window:K on any conversation and any K', () => {
    fc.assert(
      fc.property(conversation, fc.integer({ min: 1, max: 30 }), (messages, k) => {
        const view = windowView(messages, k);
        expect(pairsIntact(view)).toBe(true);
        expect(view.slice(0, 2)).toEqual(messages.slice(0, 2)); // system prompt and goal kept
        const kept = exchangeStarts(view, headLength(view)).length;
        expect(kept).toBe(Math.min(k, exchangeStarts(messages, 2).length));
        expect(view[view.length - 1]).toBe(messages[messages.length - 1]); // the latest message is always sent
      }),
      { numRuns: 300 },
    );
  });

  it('never starts an exchange at a tool message', () => {
    fc.assert(
      fc.property(conversation, (messages) => {
        for (const i of exchangeStarts(messages, headLength(messages))) expect(messages[i]!.role).not.toBe('tool');
      }),
    );
  });

  it('holds for every call of a summarize run, summaries included', async () => {
    const run = await oneRun({ scenario: 'seed-calibrated', steps: 20, context: 'summarize:2500' });
    expect(run.calls.filter((c) => c.role === 'summarize').length).toBeGreaterThan(1);
    for (const c of run.calls) expect(pairsIntact(c.sent)).toBe(true);
  });
});

describe('window:K', () => {
  it('bounds per-call input tokens while full context keeps growing', async () => {
    const k = 3;
    const windowed = await oneRun({ scenario: 'seed-calibrated', steps: 30, context: `window:${k}` });
    const full = await oneRun({ scenario: 'seed-calibrated', steps: 30, context: 'full' });
    // The bound: tools + head + the K largest exchanges of the whole conversation.
    const conv = full.messages;
    const head = headLength(conv);
    const starts = [...exchangeStarts(conv, head), conv.length];
    const sizes = starts.slice(0, -1).map((s, i) => full.counter.prompt(conv.slice(s, starts[i + 1])));
    const tools = full.calls[0]!.usage!.prompt_tokens - full.counter.prompt(conv.slice(0, head));
    const bound =
      tools +
      full.counter.prompt(conv.slice(0, head)) +
      sizes
        .sort((a, b) => b - a)
        .slice(0, k)
        .reduce((a, b) => a + b, 0);
    const act = (r: typeof windowed) => r.steps.filter((s) => s.role === 'act').map((s) => s.input_tokens);
    expect(act(windowed)).toHaveLength(30);
    for (const input of act(windowed)) expect(input).toBeLessThanOrEqual(bound);
    expect(Math.max(...act(full))).toBeGreaterThan(3 * bound); // the bound is not trivially loose
    // Same model behaviour, same steps: only the input side changes.
    expect(windowed.record.output_tokens).toBe(full.record.output_tokens);
    expect(windowed.record.input_tokens).toBeLessThan(full.record.input_tokens / 2);
    // The sim reads its step from its own numbered messages, which the window always keeps: 30 distinct steps.
    const thoughts = windowed.messages
      .filter((m) => m.role === 'assistant')
      .map((m) => /^Thought (\d+):/.exec(m.content ?? '')?.[1]);
    expect(thoughts).toEqual(Array.from({ length: 30 }, (_, i) => String(i + 1)));
  });
});

describe('summarize:T', () => {
  it('folds older history with metered summarize calls and keeps each act prompt within T', async () => {
    const t = 3000;
    const run = await oneRun({ scenario: 'seed-calibrated', steps: 30, context: `summarize:${t}` });
    const summaries = run.steps.filter((s) => s.role === 'summarize');
    expect(summaries.length).toBeGreaterThan(2);
    expect(summaries.every((s) => s.input_tokens > 0 && s.output_tokens > 0 && s.cost_usd > 0)).toBe(true);
    expect((run.record.extra?.context as { summaries: number }).summaries).toBe(summaries.length);
    for (const s of run.steps.filter((x) => x.role === 'act')) expect(s.input_tokens).toBeLessThanOrEqual(t);
    // The sim still knows its step after every fold: 30 numbered steps, none repeated.
    expect(run.record.steps).toBe(30);
    const thoughts = run.messages
      .filter((m) => m.role === 'assistant')
      .map((m) => /^Thought (\d+):/.exec(m.content ?? '')?.[1]);
    expect(thoughts).toEqual(Array.from({ length: 30 }, (_, i) => String(i + 1)));
  });

  it('tokenizes each message once however often it is re-sent', async () => {
    const run = await oneRun({ scenario: 'seed-calibrated', steps: 30, context: 'summarize:3000' });
    const distinct = new Set([
      ...run.messages,
      ...run.calls.flatMap((c) => [...c.sent, ...(c.received ? [c.received] : [])]),
    ]);
    // One tokenization per distinct message, plus the tool schema once.
    expect(run.counter.tokenizations).toBeLessThanOrEqual(distinct.size + 1);
  });
});
