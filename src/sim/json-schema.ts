// The part of JSON Schema that tool definitions use, as zod, Pydantic and hand-written specs send
// it: types, required, enum/const, nested objects and arrays, bounds, `$ref` into `$defs` or
// `definitions`, `anyOf`/`oneOf`/`allOf`, `additionalProperties`. `conforms` checks a value;
// `synthesize` writes one that conforms, so the sim can call any tool it is offered.
import { DAY_MS } from '../contracts/iso-stamps.ts';

export type Schema = boolean | { [key: string]: unknown };
type Obj = { [key: string]: unknown };

/** Past this depth a schema is taken as satisfied / written as null: recursive `$ref`s end here. */
const MAX_DEPTH = 24;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function pointer(root: Schema, ref: string): Schema | undefined {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    const part = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    if (!isObj(node) && !Array.isArray(node)) return undefined;
    node = (node as Obj)[part];
  }
  return typeof node === 'boolean' || isObj(node) ? node : undefined;
}

/** The schema with its `$ref` followed; siblings of the `$ref` (description, default…) still apply. */
function deref(s: Schema, root: Schema): Schema {
  for (let i = 0; i < MAX_DEPTH && isObj(s) && typeof s.$ref === 'string'; i++) {
    const target = pointer(root, s.$ref);
    if (target === undefined) return true; // A reference we cannot follow constrains nothing we know.
    const { $ref: _ref, ...rest } = s;
    if (typeof target === 'boolean') return Object.keys(rest).length ? rest : target;
    s = { ...target, ...rest };
  }
  return s;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObj(a) && isObj(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}

function typeOk(value: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isObj(value);
    default:
      return true;
  }
}

function patternOk(pattern: unknown, text: string): boolean {
  if (typeof pattern !== 'string') return true;
  try {
    return new RegExp(pattern, 'u').test(text);
  } catch {
    return true; // A pattern JavaScript cannot compile is not one we can hold a value to.
  }
}

/** Whether `value` satisfies `schema` (resolving references against `root`). */
export function conforms(value: unknown, schema: Schema, root: Schema = schema, depth = 0): boolean {
  if (depth > MAX_DEPTH) return true;
  const s = deref(schema, root);
  if (typeof s === 'boolean') return s;
  const sub = (v: unknown, t: unknown) => (typeof t === 'boolean' || isObj(t) ? conforms(v, t, root, depth + 1) : true);
  if ('const' in s && !deepEqual(value, s.const)) return false;
  if (Array.isArray(s.enum) && !s.enum.some((e) => deepEqual(e, value))) return false;
  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? s.type : [s.type];
    if (!types.some((t) => typeOk(value, String(t)))) return false;
  }
  if (Array.isArray(s.allOf) && !s.allOf.every((t) => sub(value, t))) return false;
  if (Array.isArray(s.anyOf) && !s.anyOf.some((t) => sub(value, t))) return false;
  if (Array.isArray(s.oneOf) && s.oneOf.filter((t) => sub(value, t)).length !== 1) return false;
  if (s.not !== undefined && sub(value, s.not)) return false;
  if (typeof value === 'string') {
    const length = [...value].length;
    if (typeof s.minLength === 'number' && length < s.minLength) return false;
    if (typeof s.maxLength === 'number' && length > s.maxLength) return false;
    if (!patternOk(s.pattern, value)) return false;
  }
  if (typeof value === 'number') {
    if (typeof s.minimum === 'number' && value < s.minimum) return false;
    if (typeof s.maximum === 'number' && value > s.maximum) return false;
    if (typeof s.exclusiveMinimum === 'number' && value <= s.exclusiveMinimum) return false;
    if (typeof s.exclusiveMaximum === 'number' && value >= s.exclusiveMaximum) return false;
    if (
      typeof s.multipleOf === 'number' &&
      s.multipleOf > 0 &&
      Math.abs(value / s.multipleOf - Math.round(value / s.multipleOf)) > 1e-9
    )
      return false;
  }
  if (Array.isArray(value)) {
    if (typeof s.minItems === 'number' && value.length < s.minItems) return false;
    if (typeof s.maxItems === 'number' && value.length > s.maxItems) return false;
    const prefix = Array.isArray(s.prefixItems) ? s.prefixItems : [];
    if (!value.every((v, i) => (i < prefix.length ? sub(v, prefix[i]) : s.items === undefined || sub(v, s.items))))
      return false;
    if (s.uniqueItems === true && value.some((v, i) => value.findIndex((w) => deepEqual(v, w)) !== i)) return false;
  }
  if (isObj(value)) {
    const props = isObj(s.properties) ? s.properties : {};
    if (Array.isArray(s.required) && !s.required.every((k) => typeof k === 'string' && k in value)) return false;
    for (const [k, v] of Object.entries(value)) {
      if (k in props) {
        if (!sub(v, props[k])) return false;
      } else if (s.additionalProperties !== undefined && !sub(v, s.additionalProperties)) return false;
    }
    const count = Object.keys(value).length;
    if (typeof s.minProperties === 'number' && count < s.minProperties) return false;
    if (typeof s.maxProperties === 'number' && count > s.maxProperties) return false;
  }
  return true;
}

/** What the sim wants to say in a call; `synthesize` fits it to the schema. */
export interface ArgHints {
  /** The profile's own arguments for the action: used field by field wherever they conform. */
  args: Obj;
  /** Text for string fields with no argument of their own (the profile's texts, else its tool name). */
  texts: string[];
  /** A number fixed per action and its arguments: repeated actions write the same values, varied ones differ. */
  key: number;
  /** Numbers to say where a number fits (a final answer's figures, in order); otherwise one drawn by `key`. */
  numbers?: number[];
}

/** A day of 2024 drawn by `key`, as toISOString writes it. */
const dayOf = (h: ArgHints) => new Date(Date.UTC(2024, 0, 1) + (h.key % 365) * DAY_MS).toISOString();
const pageOf = (h: ArgHints) => `https://example.com/${h.key % 100_000}`;

const FORMATS: Record<string, (h: ArgHints) => string> = {
  'date-time': dayOf,
  date: (h) => dayOf(h).slice(0, 10),
  time: () => '12:00:00Z',
  email: (h) => `agent${h.key % 1000}@example.com`,
  uri: pageOf,
  url: pageOf,
  uuid: (h) => `00000000-0000-4000-8000-${(h.key % 1e12).toString().padStart(12, '0')}`,
};

function fitString(s: Obj, h: ArgHints, text: string): string {
  const format = typeof s.format === 'string' ? FORMATS[s.format] : undefined;
  let out = format ? format(h) : text;
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  while ([...out].length < min) out += out ? ' x' : 'x';
  if (typeof s.maxLength === 'number') out = [...out].slice(0, s.maxLength).join('');
  return out;
}

/** A number in the schema's bounds, on its multipleOf grid (integers when unset). */
function fitNumber(s: Obj, h: ArgHints): number {
  const said = h.numbers?.find((n) => conforms(n, s));
  if (said !== undefined) return said;
  const step = typeof s.multipleOf === 'number' && s.multipleOf > 0 ? s.multipleOf : 1;
  let lo =
    typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + step : 0;
  let hi =
    typeof s.maximum === 'number'
      ? s.maximum
      : typeof s.exclusiveMaximum === 'number'
        ? s.exclusiveMaximum - step
        : lo + 1000;
  if (hi < lo) [lo, hi] = [hi, lo];
  const first = Math.ceil(lo / step);
  const count = Math.max(1, Math.floor(hi / step) - first + 1);
  return (first + (h.key % count)) * step;
}

const NULL_FIRST = (t: unknown) => isObj(t) && t.type === 'null';

/** A value that conforms to `schema`, saying what the hints say wherever the schema allows it. */
export function synthesize(schema: Schema, root: Schema, h: ArgHints, depth = 0): unknown {
  if (depth > MAX_DEPTH) return null;
  const s = deref(schema, root);
  if (typeof s === 'boolean') return h.args;
  const fits = (v: unknown) => conforms(v, s, root);
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[h.key % s.enum.length];
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = s[key];
    if (!Array.isArray(options) || options.length === 0) continue;
    // Prefer a real value to null (Pydantic writes Optional[X] as anyOf [X, null]).
    const ordered = [...options.filter((o) => !NULL_FIRST(o)), ...options.filter(NULL_FIRST)];
    const { [key]: _drop, ...rest } = s;
    for (const o of ordered) {
      const v = synthesize(isObj(o) ? { ...rest, ...o } : (o as Schema), root, h, depth + 1);
      if (fits(v)) return v;
    }
    return synthesize(ordered[0] as Schema, root, h, depth + 1);
  }
  if (Array.isArray(s.allOf) && s.allOf.length) {
    const { allOf, ...rest } = s;
    const merged = (allOf as unknown[]).reduce<Obj>((acc, part) => {
      const p = deref(part as Schema, root);
      if (!isObj(p)) return acc;
      return {
        ...acc,
        ...p,
        properties: { ...(isObj(acc.properties) ? acc.properties : {}), ...(isObj(p.properties) ? p.properties : {}) },
        required: [
          ...(Array.isArray(acc.required) ? acc.required : []),
          ...(Array.isArray(p.required) ? p.required : []),
        ],
      };
    }, rest);
    return synthesize(merged, root, h, depth + 1);
  }
  const types = (Array.isArray(s.type) ? s.type : s.type !== undefined ? [s.type] : []).map(String);
  const type =
    types.find((t) => t !== 'null') ??
    types[0] ??
    (isObj(s.properties) ? 'object' : s.items !== undefined ? 'array' : 'string');
  switch (type) {
    case 'string':
      return fitString(s, h, h.texts[0] ?? '');
    case 'integer':
    case 'number':
      return fitNumber(s, h);
    case 'boolean':
      return h.key % 2 === 1;
    case 'null':
      return null;
    case 'array': {
      const min = typeof s.minItems === 'number' ? s.minItems : 0;
      const max = typeof s.maxItems === 'number' ? s.maxItems : Infinity;
      const count = Math.min(max, Math.max(min, 1));
      const prefix = Array.isArray(s.prefixItems) ? s.prefixItems : [];
      return Array.from({ length: count }, (_, i) => {
        const item = (prefix[i] ?? s.items ?? {}) as Schema;
        const texts = h.texts.length ? [h.texts[i % h.texts.length]!] : [];
        return synthesize(
          item,
          root,
          { args: {}, texts, key: h.key + i, ...(h.numbers ? { numbers: h.numbers } : {}) },
          depth + 1,
        );
      });
    }
    case 'object':
      return synthesizeObject(s, root, h, depth);
    default:
      return null;
  }
}

function synthesizeObject(s: Obj, root: Schema, h: ArgHints, depth: number): Obj {
  const props = isObj(s.properties) ? s.properties : {};
  const required = Array.isArray(s.required) ? s.required.filter((k): k is string => typeof k === 'string') : [];
  const names = Object.keys(props);
  // Required fields, and optional ones the profile's arguments fill; with neither, the first field,
  // so that varied actions stay varied calls.
  const chosen = new Set([...required, ...names.filter((k) => k in h.args)]);
  if (chosen.size === 0 && names.length) chosen.add(names[0]!);
  const out: Obj = {};
  let textIndex = 0;
  let field = 0;
  for (const k of chosen) {
    field++;
    const propSchema = (props[k] ?? s.additionalProperties ?? {}) as Schema;
    if (k in h.args && conforms(h.args[k], propSchema, root)) {
      out[k] = h.args[k];
      continue;
    }
    const own = typeof h.args[k] === 'string' ? [h.args[k] as string] : [];
    const texts = own.length ? own : h.texts.length ? [h.texts[textIndex++ % h.texts.length]!] : [];
    out[k] = synthesize(
      propSchema,
      root,
      {
        args: isObj(h.args[k]) ? (h.args[k] as Obj) : {},
        texts,
        key: h.key + field,
        ...(h.numbers ? { numbers: h.numbers } : {}),
      },
      depth + 1,
    );
  }
  // A free-form object (a dict, or no declared fields) may take the profile's other arguments as they are.
  if (names.length === 0 && s.additionalProperties !== false) {
    for (const [k, v] of Object.entries(h.args))
      if (!(k in out) && (s.additionalProperties === undefined || conforms(v, s.additionalProperties as Schema, root)))
        out[k] = v;
  }
  return out;
}
