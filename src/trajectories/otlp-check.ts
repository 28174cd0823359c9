// What an OTLP/JSON ExportTraceServiceRequest (or a decoded protobuf one) must be before loopbench acts
// on it: the receiver answers 400 with the path of the first bad field, an import skips the line or
// span and names it. The shape is checked as far as loopbench reads it (unknown fields are kept as
// they came), the nesting is bounded (a 100k-deep body would overflow every recursive walk after it),
// and every token count and cost is a figure loopbench may price (src/contracts/counts.ts). Pure.
import { z } from 'zod';
import { costProblem, countProblem } from '../contracts/counts.ts';
import { issuePath } from '../scenario/yaml-file.ts';
import { ALIASES } from './otel-attributes.ts';

/** Containers deeper than this are refused: OTLP's own shape is 13 deep at a nested attribute value. */
export const MAX_NESTING = 64;

/** A bad field: where (a path like resourceSpans[0].scopeSpans[0].spans[2].attributes[3].value) and why. */
export interface FieldProblem {
  path: string;
  why: string;
}

/** The first container of `v` nested deeper than `max` levels, or null. Iterative: any depth is safe to check. */
export function nestingProblem(v: unknown, max = MAX_NESTING): FieldProblem | null {
  const stack: Array<{ v: unknown; path: Array<string | number> }> = [{ v, path: [] }];
  while (stack.length) {
    const { v: x, path } = stack.pop()!;
    if (!x || typeof x !== 'object') continue;
    if (path.length >= max) {
      const where = issuePath(path);
      return { path: where.length > 80 ? `${where.slice(0, 80)}…` : where, why: `nested deeper than ${max} levels` };
    }
    if (Array.isArray(x)) x.forEach((m, i) => stack.push({ v: m, path: [...path, i] }));
    else for (const [k, m] of Object.entries(x)) stack.push({ v: m, path: [...path, k] });
  }
  return null;
}

const COUNT_KEYS: ReadonlySet<string> = new Set([
  ...ALIASES.inputTokens,
  ...ALIASES.outputTokens,
  ...ALIASES.cacheRead,
  ...ALIASES.cacheCreation,
  ...ALIASES.reasoning,
]);
const COST_KEYS: ReadonlySet<string> = new Set(ALIASES.cost);

/** A numeric attribute value as a number (NaN when it is not one); OTLP/JSON spells int64 as a string and NaN as "NaN". */
export function numberOf(value: unknown): number {
  const v = (value ?? {}) as { intValue?: unknown; doubleValue?: unknown; stringValue?: unknown };
  const x = v.intValue ?? v.doubleValue ?? v.stringValue;
  if (typeof x === 'number') return x;
  return typeof x === 'string' && x.trim() !== '' ? Number(x) : NaN;
}

const shown = (value: unknown) => {
  const v = (value ?? {}) as Record<string, unknown>;
  const x = v.intValue ?? v.doubleValue ?? v.stringValue;
  return x === undefined ? 'missing' : JSON.stringify(x).slice(0, 40);
};

const Nanos = z.union([
  z.string().regex(/^\d+$/, 'expected nanoseconds as a string of digits'),
  z.number().nonnegative(),
]);
const AnyValue = z.looseObject({
  stringValue: z.string().optional(),
  intValue: z.union([z.string().regex(/^-?\d+$/, 'expected an integer'), z.number().int()]).optional(),
  doubleValue: z.union([z.number(), z.enum(['NaN', 'Infinity', '-Infinity'])]).optional(),
  boolValue: z.boolean().optional(),
  arrayValue: z.looseObject({ values: z.array(z.unknown()).optional() }).optional(),
});
const KeyValue = z.looseObject({ key: z.string(), value: AnyValue.nullish() });

const Span = z
  .looseObject({
    traceId: z.string().min(1),
    spanId: z.string().min(1),
    parentSpanId: z.string().optional(),
    name: z.string().optional(),
    kind: z.union([z.number(), z.string()]).optional(),
    startTimeUnixNano: Nanos.optional(),
    endTimeUnixNano: Nanos.optional(),
    attributes: z.array(KeyValue).optional(),
    status: z
      .looseObject({ code: z.union([z.number(), z.string()]).optional(), message: z.string().optional() })
      .nullish(),
  })
  .superRefine((span, ctx) => {
    (span.attributes ?? []).forEach((kv, i) => {
      const counted = COUNT_KEYS.has(kv.key);
      if (!counted && !COST_KEYS.has(kv.key)) return;
      const n = numberOf(kv.value);
      const problem = counted ? countProblem(n) : costProblem(n);
      if (problem)
        ctx.addIssue({
          code: 'custom',
          path: ['attributes', i, 'value'],
          message: `${kv.key} ${shown(kv.value)} ${problem}`,
        });
    });
  });

const ScopeSpans = z.looseObject({ scope: z.looseObject({}).nullish(), spans: z.array(z.unknown()).optional() });
const ResourceSpans = z.looseObject({
  resource: z.looseObject({ attributes: z.array(KeyValue).optional() }).nullish(),
  scopeSpans: z.array(ScopeSpans).optional(),
  instrumentationLibrarySpans: z.array(ScopeSpans).optional(),
});
const Request = z.looseObject({ resourceSpans: z.array(ResourceSpans).optional() });

function first(r: z.ZodSafeParseResult<unknown>, prefix: ReadonlyArray<string | number>): FieldProblem | null {
  if (r.success) return null;
  const i = r.error.issues[0]!;
  return { path: issuePath([...prefix, ...(i.path as Array<string | number>)]), why: i.message };
}

/** Why one span (an element of a scopeSpans' `spans`) cannot be read, its path under `prefix`, or null. */
export function spanProblem(span: unknown, prefix: ReadonlyArray<string | number> = []): FieldProblem | null {
  return first(Span.safeParse(span), prefix);
}

/** Why a request's outer shape (everything but the spans themselves) cannot be read, or null. */
export function requestShapeProblem(request: unknown): FieldProblem | null {
  return nestingProblem(request) ?? first(Request.safeParse(request), []);
}

/** The spans of a request whose shape is sound, each with its path and its resource. */
export function* spansOf(
  request: unknown,
): Generator<{ span: unknown; path: Array<string | number>; resource: unknown }> {
  const rss = (request as { resourceSpans?: Array<Record<string, unknown>> }).resourceSpans ?? [];
  for (const [i, rs] of rss.entries()) {
    const key = rs.scopeSpans ? 'scopeSpans' : 'instrumentationLibrarySpans';
    for (const [j, ss] of ((rs[key] as Array<{ spans?: unknown[] }> | undefined) ?? []).entries())
      for (const [k, span] of (ss.spans ?? []).entries())
        yield { span, path: ['resourceSpans', i, key, j, 'spans', k], resource: rs.resource };
  }
}

/** The first bad field of a whole request (shape, nesting, then each span), or null when all of it can be read. */
export function requestProblem(request: unknown): FieldProblem | null {
  const shape = requestShapeProblem(request);
  if (shape) return shape;
  for (const { span, path } of spansOf(request)) {
    const p = spanProblem(span, path);
    if (p) return p;
  }
  return null;
}
