// The pure parts under the gateway: locating a body's members in its bytes (against JSON.parse, on
// random JSON), recognising a conversation's repeated elements, splicing, and checking usage.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { meterUsage } from '../src/gateway/usage-check.ts';
import { elementSpan, keepArray, scanObject, spanText, splice, type ScannedArray } from '../src/wire/json-body.ts';
import { MAX_TOKENS_PER_CALL } from '../src/contracts/counts.ts';

const elements = (b: Buffer, a: ScannedArray) =>
  Array.from({ length: a.bounds.length / 2 }, (_, k) => JSON.parse(spanText(b, elementSpan(a, k))) as unknown);

// Through JSON once, as a body would be (-0 is written 0).
const json = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);
const body = fc.dictionary(fc.string({ maxLength: 8 }), json, { maxKeys: 6 });
/** The same object spelled with whitespace, unicode escapes and a few spaces around separators. */
const spelled = (o: Record<string, unknown>, space: number) =>
  JSON.stringify(o, null, space).replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

describe('scanObject', () => {
  it('finds every member JSON.parse finds, each span its value', () => {
    fc.assert(
      fc.property(body, fc.integer({ min: 0, max: 3 }), (o, space) => {
        const b = Buffer.from(spelled({ ...o, messages: [1, 'two', { three: [3] }] }, space));
        const s = scanObject(b, 'messages', null)!;
        expect(s).not.toBeNull();
        const parsed = JSON.parse(b.toString()) as Record<string, unknown>;
        expect(new Set(s.members.keys())).toEqual(new Set(Object.keys(parsed)));
        for (const [k, span] of s.members) expect(JSON.parse(spanText(b, span))).toEqual(parsed[k]);
        expect(elements(b, s.array!)).toEqual([1, 'two', { three: [3] }]);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses what is not one JSON object (values it does not read are located, not checked: the upstream checks them)', () => {
    for (const t of [
      '',
      '[]',
      '{"a":1',
      '{"a":1}x',
      '{"a" 1}',
      '{a:1}',
      '{"a":1,}',
      '{"messages":[1,]}',
      '{"messages":[1 2]}',
    ])
      expect(scanObject(Buffer.from(t), 'messages', null)).toBeNull();
  });

  it('decodes escaped keys, and names a key given twice', () => {
    const s = scanObject(Buffer.from('{"max_tokens": 1, "max\\u005ftokens": 2}'), 'messages', null)!;
    expect(s.duplicate).toBe('max_tokens');
  });

  it('recognises the elements an earlier body had, by their bytes, wherever the array sits now', () => {
    fc.assert(
      fc.property(
        fc.array(json, { minLength: 1, maxLength: 8 }),
        fc.array(json, { maxLength: 4 }),
        fc.nat(3),
        fc.string({ maxLength: 20 }),
        (old, added, edit, pad) => {
          const first = Buffer.from(JSON.stringify({ model: 'm', messages: old }));
          const prior = keepArray(first, scanObject(first, 'messages', null)!.array!, null);
          const now = [...old, ...added];
          const editAt = edit < now.length && edit < old.length ? edit : -1;
          if (editAt >= 0) now[editAt] = { edited: editAt };
          const second = Buffer.from(JSON.stringify({ pad, messages: now, model: 'm' }));
          const s = scanObject(second, 'messages', prior)!;
          expect(elements(second, s.array!)).toEqual(now);
          for (let k = 0; k < now.length; k++)
            expect(s.array!.same[k] === 1).toBe(k < old.length && JSON.stringify(now[k]) === JSON.stringify(old[k]));
          // Kept again over the same buffer (only the tail past the prefix copied), it is the second body's array.
          const kept = keepArray(second, s.array!, prior);
          expect(kept.bytes.subarray(0, kept.length).toString()).toBe(
            spanText(second, { start: s.array!.open, end: s.array!.open + kept.length }),
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('splice', () => {
  it('replaces members it has and adds the ones it lacks; everything else byte for byte', () => {
    fc.assert(
      fc.property(body, fc.integer({ min: 0, max: 2 }), fc.nat(1000), (o, space, n) => {
        const text = spelled(o, space);
        const b = Buffer.from(text);
        const s = scanObject(b, 'messages', null)!;
        const out = Buffer.concat(
          splice(b, s, [
            ['model', '"x"'],
            ['max_tokens', String(n)],
          ]),
        ).toString();
        expect(JSON.parse(out)).toEqual({ ...o, model: 'x', max_tokens: n });
      }),
      { numRuns: 300 },
    );
  });
});

describe('meterUsage', () => {
  const bounds = { promptTokens: 1000, maxOutputTokens: 300, completionTokens: 40, promptBounded: true };
  it.each([
    [
      'as sent',
      { prompt: 1100, completion: 50, cached: 200 },
      { usage: { prompt_tokens: 1100, completion_tokens: 50, cached_tokens: 200 }, source: 'provider' },
    ],
    [
      'absent cached',
      { prompt: 1100, completion: 50, cached: undefined },
      { usage: { prompt_tokens: 1100, completion_tokens: 50, cached_tokens: 0 }, source: 'provider' },
    ],
    [
      'a fraction',
      { prompt: 10.5, completion: 50, cached: 0 },
      { usage: { prompt_tokens: 1000, completion_tokens: 50, cached_tokens: 0 }, source: 'counted' },
    ],
    ['NaN as a string', { prompt: 'NaN', completion: 50, cached: 0 }, { source: 'counted' }],
    [
      'cached above the prompt',
      { prompt: 1100, completion: 50, cached: 5000 },
      { usage: { prompt_tokens: 1100, completion_tokens: 50, cached_tokens: 0 }, source: 'counted' },
    ],
    [
      'a prompt under a quarter of the count',
      { prompt: 100, completion: 50, cached: 0 },
      { usage: { prompt_tokens: 1000, completion_tokens: 50, cached_tokens: 0 }, source: 'counted' },
    ],
    [
      'an answer under a quarter of the count',
      { prompt: 1000, completion: 2, cached: 0 },
      { usage: { prompt_tokens: 1000, completion_tokens: 40, cached_tokens: 0 }, source: 'counted' },
    ],
    [
      'output over the limit',
      { prompt: 1000, completion: 301, cached: 0 },
      {
        usage: { prompt_tokens: 1000, completion_tokens: 301, cached_tokens: 0 },
        source: 'provider',
        overReported: expect.stringMatching(/301 is more than the 300/),
      },
    ],
    [
      'a prompt beyond reach',
      { prompt: 5001, completion: 50, cached: 0 },
      { source: 'provider', overReported: expect.stringMatching(/prompt_tokens 5,001/) },
    ],
  ])('%s', (_name, sent, expected) => {
    const m = meterUsage(sent, bounds);
    expect(m).toMatchObject(expected);
    if (m.source !== 'provider' || m.overReported)
      expect(m).toMatchObject({ counted: { prompt_tokens: 1000, completion_tokens: 40 }, note: expect.any(String) });
  });

  it('does not bound a prompt with images or files (their tokens are not counted here)', () => {
    expect(
      meterUsage({ prompt: 50_000, completion: 50, cached: 0 }, { ...bounds, promptBounded: false }),
    ).toMatchObject({ source: 'provider', usage: { prompt_tokens: 50_000 } });
    expect(
      meterUsage({ prompt: 50_000, completion: 50, cached: 0 }, { ...bounds, promptBounded: false }).overReported,
    ).toBeUndefined();
  });

  it('never bills a count over the ceiling (MAX_TOKENS_PER_CALL), not even for a prompt with images: 2^53 − 1 input tokens are not believed', () => {
    const m = meterUsage(
      { prompt: Number.MAX_SAFE_INTEGER, completion: 50, cached: 0 },
      { ...bounds, promptBounded: false },
    );
    expect(m).toMatchObject({
      source: 'counted',
      usage: { prompt_tokens: 1000, completion_tokens: 50 },
      reported: { prompt_tokens: null },
    });
    expect(m.note).toMatch(/prompt_tokens 9007199254740991 is not a non-negative integer up to 1,000,000,000/);
    expect(
      meterUsage({ prompt: MAX_TOKENS_PER_CALL, completion: 50, cached: 0 }, { ...bounds, promptBounded: false }),
    ).toMatchObject({ source: 'provider', usage: { prompt_tokens: MAX_TOKENS_PER_CALL } });
    expect(meterUsage({ prompt: 1000, completion: 50, cached: 0, reasoning: 1e18 }, bounds).note).toMatch(
      /reasoning_tokens 1000000000000000000 is not a non-negative integer/,
    );
  });
});
