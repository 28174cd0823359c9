// A zod schema's own answer, asked ahead of it for the values it meets most: a million-step trajectory
// checks a million steps, and zod's parse of one (copying every object and array it accepts) cost
// ~12 % of such an import's CPU. The predicate is compiled once from the schema's definition, so the
// schema stays the one statement of what is accepted: it answers only what it can answer exactly, and
// says "unsure" of anything else (a transform, a refinement, a check or type not listed here), for
// which the caller asks zod as before. Tests hold it to zod on many odd values.
import type { z } from 'zod';

/** Accepted unchanged (zod's result deep-equals the value) / refused / not decided here. */
type Verdict = 'yes' | 'no' | 'unsure';
type Check = (v: unknown) => Verdict;

interface Def {
  type: string;
  checks?: Array<{ _zod: { def: Record<string, unknown> } }>;
  shape?: Record<string, Schema>;
  catchall?: Schema;
  innerType?: Schema;
  options?: Schema[];
  element?: Schema;
  keyType?: Schema;
  valueType?: Schema;
}
interface Schema {
  _zod: { def: Def; values?: unknown };
}

const unsure: Check = () => 'unsure';
/** The parts of a zod definition this answers for; a definition with any other is left to zod. */
const DEF_KEYS = new Set([
  'type',
  'checks',
  'shape',
  'catchall',
  'innerType',
  'options',
  'element',
  'keyType',
  'valueType',
  'entries',
]);

/** An object as JSON.parse makes them; zod is asked of any other (its plain-object test reads `constructor`, a record's keys include symbols). */
function isPlainObject(v: object): boolean {
  return (
    Object.getPrototypeOf(v) === Object.prototype &&
    !Object.hasOwn(v, '__proto__') &&
    !Object.hasOwn(v, 'constructor') &&
    Object.getOwnPropertySymbols(v).length === 0
  );
}

/** A length or number check; null when it is one this does not know. */
function checkOf(def: Record<string, unknown>): ((v: number) => boolean) | null {
  const { check, value, inclusive, minimum, maximum, format } = def;
  if (check === 'number_format' && format === 'safeint') return Number.isSafeInteger;
  if (check === 'greater_than' && typeof value === 'number') return inclusive ? (v) => v >= value : (v) => v > value;
  if (check === 'less_than' && typeof value === 'number') return inclusive ? (v) => v <= value : (v) => v < value;
  if (check === 'min_length' && typeof minimum === 'number') return (v) => v >= minimum;
  if (check === 'max_length' && typeof maximum === 'number') return (v) => v <= maximum;
  return null;
}

/** All of a schema's checks, on a number or a length; null when one of them is unknown here. */
function checksOf(def: Def): ((v: number) => boolean) | null {
  const checks = (def.checks ?? []).map((c) => checkOf(c._zod.def));
  if (checks.some((c) => c === null)) return null;
  const all = checks as Array<(v: number) => boolean>;
  return (v) => all.every((c) => c(v));
}

function compile(schema: Schema): Check {
  const def = schema._zod.def;
  // A definition with anything more (z.coerce, a schema that is itself a check such as z.int() or
  // z.email(), a newer option) is zod's to answer.
  if (Object.keys(def).some((k) => !DEF_KEYS.has(k))) return unsure;
  switch (def.type) {
    case 'unknown':
    case 'any':
      return () => 'yes';
    case 'optional': {
      const inner = compile(def.innerType!);
      return (v) => (v === undefined ? 'yes' : inner(v));
    }
    case 'nullable': {
      const inner = compile(def.innerType!);
      return (v) => (v === null ? 'yes' : inner(v));
    }
    case 'string': {
      const ok = checksOf(def);
      if (!ok) return unsure;
      return (v) => (typeof v !== 'string' ? 'no' : ok(v.length) ? 'yes' : 'no');
    }
    case 'number': {
      const ok = checksOf(def);
      if (!ok) return unsure;
      return (v) => (typeof v !== 'number' || !Number.isFinite(v) ? 'no' : ok(v) ? 'yes' : 'no');
    }
    case 'boolean':
      return def.checks?.length ? unsure : (v) => (typeof v === 'boolean' ? 'yes' : 'no');
    case 'enum': {
      // zod's own set: the entries of a TypeScript numeric enum also hold its reverse mapping (names), which zod refuses.
      const values = schema._zod.values;
      if (!(values instanceof Set) || def.checks?.length) return unsure;
      return (v) => (values.has(v) ? 'yes' : 'no');
    }
    case 'union': {
      // zod takes the first option that accepts: an option not decided here leaves the answer undecided.
      const options = def.options!.map(compile);
      return (v) => {
        for (const o of options) {
          const verdict = o(v);
          if (verdict !== 'no') return verdict;
        }
        return 'no';
      };
    }
    case 'array': {
      const ok = checksOf(def);
      if (!ok) return unsure;
      const element = compile(def.element!);
      return (v) => {
        if (!Array.isArray(v)) return 'no';
        if (!ok(v.length)) return 'no';
        return all(v, element);
      };
    }
    case 'record': {
      const key = def.keyType!._zod.def;
      if (key.type !== 'string' || key.checks?.length || def.checks?.length) return unsure;
      const value = compile(def.valueType!);
      return (v) => {
        if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'no';
        if (!isPlainObject(v)) return 'unsure';
        return all(Object.values(v), value);
      };
    }
    case 'object':
      return objectCheck(def);
    default:
      return unsure;
  }
}

function all(values: readonly unknown[], check: Check): Verdict {
  let verdict: Verdict = 'yes';
  for (const x of values) {
    const one = check(x);
    if (one === 'no') return 'no';
    if (one === 'unsure') verdict = 'unsure';
  }
  return verdict;
}

function objectCheck(def: Def): Check {
  if (def.checks?.length) return unsure;
  const catchall = def.catchall?._zod.def.type;
  // `loose` (unknown keys kept) or the default (unknown keys dropped: accepted unchanged only without any).
  if (catchall !== undefined && catchall !== 'unknown') return unsure;
  const fields = Object.entries(def.shape!).map(([key, s]) => ({
    key,
    check: compile(s),
    optional: s._zod.def.type === 'optional',
  }));
  const known = new Set(fields.map((f) => f.key));
  return (v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'no';
    if (!isPlainObject(v)) return 'unsure';
    const o = v as Record<string, unknown>;
    let verdict: Verdict = 'yes';
    for (const f of fields) {
      // An absent key zod leaves absent only when it is optional; otherwise it is zod's to say.
      if (!f.optional && !Object.hasOwn(o, f.key)) {
        verdict = 'unsure';
        continue;
      }
      const one = f.check(o[f.key]);
      if (one === 'no') return 'no';
      if (one === 'unsure') verdict = 'unsure';
    }
    if (catchall === undefined) for (const k in o) if (!known.has(k)) return 'unsure';
    return verdict;
  };
}

/**
 * `accepts(v)`: true only when `schema.safeParse(v)` succeeds with data deep-equal to `v` (key order
 * aside), so the caller may take `v` as parsed; false when zod must be asked (it refuses the value, or
 * this cannot tell). For data as JSON.parse makes it: a property defined non-enumerable is not looked for.
 */
export function zodAccepts<T>(schema: z.ZodType<T>): (v: unknown) => v is T {
  const check = compile(schema as unknown as Schema);
  return (v): v is T => check(v) === 'yes';
}

/** The verdict itself, for tests that hold it to zod. */
export function zodVerdict(schema: z.ZodType): (v: unknown) => Verdict {
  return compile(schema as unknown as Schema);
}
