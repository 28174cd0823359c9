// zodAccepts answers for a zod schema only what zod itself would answer: "yes" only when zod accepts
// the value and gives back an equal one, "no" only when zod refuses it. Held to zod on the ATIF
// step schema and on schemas using what it does not decide, over many values made odd at random.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../src/stats/random.ts';
import { z } from 'zod';
import { zodAccepts, zodVerdict } from '../src/contracts/zod-fast.ts';
import { AtifMetrics, AtifStep, AtifToolCall } from '../src/trajectories/atif-schema.ts';

/** A TypeScript numeric enum: its object also maps the numbers back to the names, which zod refuses. */
enum Digit {
  One = 1,
  Two = 2,
}

class Thing {
  x = 1;
}
const odd = (): unknown[] => [
  undefined,
  null,
  true,
  0,
  -0,
  1,
  -1,
  1.5,
  1e9,
  1e9 + 1,
  2 ** 53,
  NaN,
  Infinity,
  -Infinity,
  '',
  'x',
  'agent',
  'system',
  '2026-01-01T00:00:00Z',
  [],
  [1, 'a'],
  [{}],
  [{ session_id: 's' }],
  [{ tool_call_id: 'c', function_name: 'f', arguments: {} }],
  {},
  { a: 1 },
  { results: [] },
  { prompt_tokens: 5 },
  Object.create(null) as object,
  new Date(0),
  new Thing(),
  { constructor: 1 },
  { constructor: Thing },
  { [Symbol('s')]: 1 },
  JSON.parse('{"__proto__":{"x":1}}') as object,
  () => 1,
];

const steps = (): Array<Record<string, unknown>> => [
  { step_id: 1, source: 'user', message: 'goal' },
  {
    step_id: 2,
    timestamp: '2026-01-01T00:00:01.000Z',
    source: 'agent',
    model_name: 'gpt-4o-mini',
    message: '',
    tool_calls: [{ tool_call_id: 'c1', function_name: 'search', arguments: { q: 'page 1' } }],
    metrics: { prompt_tokens: 201, completion_tokens: 50, cached_tokens: 0, cost_usd: 0.00003, extra: { x: 1 } },
  },
  {
    step_id: 3,
    source: 'system',
    message: [{ type: 'text', text: 'hi' }],
    reasoning_content: null,
    tool_calls: null,
    observation: {
      results: [
        { source_call_id: 'c1', content: 'ok', subagent_trajectory_ref: [{ session_id: 's', trajectory_path: null }] },
      ],
    },
    metrics: null,
    extra: { loopbench_arguments_unknown: true },
    newer_field: [1, 2],
  },
];

/** Places inside a value: [parent, key] pairs, the value itself not among them. */
function places(v: unknown, out: Array<[Record<string | number, unknown>, string | number]> = []) {
  if (v && typeof v === 'object') {
    for (const k of Object.keys(v)) {
      const c = v as Record<string, unknown>;
      out.push([c, Array.isArray(v) ? Number(k) : k]);
      places(c[k], out);
    }
  }
  return out;
}

/** A copy of `base` with one to three places replaced, removed or added. */
function mutate(base: unknown, next: () => number): unknown {
  const v = structuredClone(base);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  for (let n = 1 + Math.floor(next() * 3); n > 0; n--) {
    const all = places(v);
    if (all.length === 0) break;
    const [parent, key] = pick(all);
    const what = next();
    if (what < 0.6) parent[key] = pick(odd());
    else if (what < 0.8 && !Array.isArray(parent)) delete parent[key];
    else if (!Array.isArray(parent)) parent[pick(['extra_key', 'step_id', 'message', 'extra'])] = pick(odd());
  }
  return v;
}

/** Checks every verdict against zod; returns how many were each. */
function holdToZod(schema: z.ZodType, values: readonly unknown[]): Record<string, number> {
  const verdict = zodVerdict(schema);
  const counts: Record<string, number> = { yes: 0, no: 0, unsure: 0 };
  for (const v of values) {
    const said = verdict(v);
    counts[said]!++;
    const zod = schema.safeParse(v);
    if (said === 'yes') {
      expect(zod.success, JSON.stringify(v)).toBe(true);
      expect(zod.data).toStrictEqual(v);
    } else if (said === 'no') expect(zod.success, JSON.stringify(v)).toBe(false);
  }
  return counts;
}

describe('zodAccepts', () => {
  it('says yes to ATIF steps as writers write them, which zod gives back equal', () => {
    const accepts = zodAccepts(AtifStep);
    for (const s of steps()) {
      expect(accepts(s)).toBe(true);
      expect(AtifStep.parse(s)).toStrictEqual(s);
    }
  });

  it('agrees with zod on ATIF steps, tool calls and metrics made odd at random', () => {
    const next = mulberry32(42);
    const cases = Array.from({ length: 6000 }, (_, i) => mutate(steps()[i % 3], next));
    const counts = holdToZod(AtifStep, cases);
    // Each verdict met often, so each side of the rule is tested.
    expect(counts.yes).toBeGreaterThan(300);
    expect(counts.no).toBeGreaterThan(300);
    expect(counts.unsure).toBeGreaterThan(30);
    const call = steps()[1]!.tool_calls as unknown[];
    holdToZod(
      AtifToolCall,
      Array.from({ length: 1000 }, () => mutate(call[0], next)),
    );
    holdToZod(
      AtifMetrics,
      Array.from({ length: 1000 }, () => mutate(steps()[1]!.metrics, next)),
    );
    holdToZod(AtifStep, odd());
  });

  it('leaves to zod what it does not decide: refinements, transforms, defaults, dropped keys, unions it cannot order', () => {
    const next = mulberry32(7);
    const schemas: z.ZodType[] = [
      z.object({ a: z.number().int(), b: z.string().optional() }),
      z.strictObject({ a: z.number() }),
      z.object({ a: z.number().refine((n) => n !== 1) }),
      z.object({ a: z.string().transform((s) => s.length) }),
      z.object({ a: z.number().default(3) }),
      z.object({ a: z.unknown() }),
      z.union([z.string().transform((s) => s.trim()), z.number()]),
      z.union([z.number().gt(0).lt(10), z.array(z.number()).min(1).max(2)]),
      z.record(z.string().min(2), z.number()),
      z.record(z.string(), z.number()),
      z.array(z.boolean()).nonempty(),
      z.enum(['a', 'b']),
      z.enum(Digit),
      z.object({ n: z.coerce.number(), s: z.coerce.string().optional() }),
      z.object({ i: z.int(), i32: z.int32().optional(), at: z.iso.datetime().optional(), e: z.email().optional() }),
      z.string().email(),
    ];
    const base = [
      { n: '5', s: 1 },
      { i: 1.5, i32: 2 ** 40, at: 'x', e: 'nope' },
      { i: 1, at: '2026-01-01T00:00:00Z', e: 'a@b.co' },
      { a: 1, b: 'x' },
      { a: 'xy' },
      ['a', 1],
      5,
      'a',
      [true],
      { ab: 1, c: 2 },
      'One',
      2,
    ];
    const values = [...odd(), ...Array.from({ length: 1500 }, (_, i) => mutate(base[i % base.length], next))];
    for (const s of schemas) holdToZod(s, values);
    expect(zodVerdict(schemas[2]!)({ a: 2 })).toBe('unsure');
    expect(zodVerdict(schemas[3]!)({ a: 'x' })).toBe('unsure');
    expect(zodVerdict(schemas[0]!)({ a: 1, c: 2 })).toBe('unsure');
    expect(zodVerdict(schemas[0]!)({ a: 1.5 })).toBe('no');
  });
});
