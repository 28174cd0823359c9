// What every protocol's request parser at the gateway shares: refusals in bench serve's words, a
// member's value parsed from its span, the members the gateway reads besides the conversation
// checked with bench serve's own schema, and the tool definitions kept by their bytes.
import type { Buffer } from 'node:buffer';
import type { z } from 'zod';
import { issuePath } from '../scenario/yaml-file.ts';
import { Buffer as NodeBuffer } from 'node:buffer';
import type { CallChanges } from './adapter.ts';
import type { WireError } from './error.ts';
import {
  sameBytes,
  scanObject,
  spanText,
  splice,
  type PriorArray,
  type ScannedObject,
  type Span,
} from './json-body.ts';

export const invalid = (path: PropertyKey[], message: string): WireError => {
  const param = issuePath(path);
  return {
    status: 400,
    message: `Invalid value for '${param}': ${message}`,
    type: 'invalid_request_error',
    param,
    code: 'invalid_value',
  };
};
export const badRequest = (message: string): WireError => ({ status: 400, message, type: 'invalid_request_error' });

/** Why a body that could not be located is refused, in the words bench serve uses; `what` names the request (`chat-completions`). */
export function unreadable(body: Buffer, what: string): WireError {
  const text = body.toString('utf8');
  if (!text.trim()) return badRequest(`Request body is empty: send a JSON ${what} request`);
  try {
    const v: unknown = JSON.parse(text);
    return badRequest(
      v && typeof v === 'object' && !Array.isArray(v)
        ? 'Request body could not be read as a JSON object'
        : 'Request body must be a JSON object',
    );
  } catch (e) {
    return badRequest(`Request body is not valid JSON (${(e as Error).message})`);
  }
}

export function parseSpan(body: Buffer, s: Span): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(spanText(body, s)) };
  } catch {
    return { ok: false };
  }
}

type Result<T> = { ok: true; value: T } | { ok: false; error: WireError };

/** The members `schema` names (each parsed from its span), checked by it; a schema error names its member as bench serve does. */
export function readMembers<S extends z.ZodObject>(
  body: Buffer,
  scanned: ScannedObject,
  schema: S,
  what: string,
): Result<z.infer<S>> {
  const read: Record<string, unknown> = {};
  for (const key of Object.keys(schema.shape)) {
    const span = scanned.members.get(key);
    if (!span) continue;
    const v = parseSpan(body, span);
    if (!v.ok) return { ok: false, error: unreadable(body, what) };
    read[key] = v.value;
  }
  const checked = schema.safeParse(read);
  if (checked.success) return { ok: true, value: checked.data };
  const i = checked.error.issues[0]!;
  return { ok: false, error: invalid(i.path, i.message) };
}

/** One element of an array, parsed from its span and checked by `schema`; an error names its place (`input[3].content`). */
export function readElement<S extends z.ZodType>(
  body: Buffer,
  span: Span,
  schema: S,
  at: PropertyKey[],
  what: string,
): Result<z.infer<S>> {
  const v = parseSpan(body, span);
  if (!v.ok) return { ok: false, error: unreadable(body, what) };
  const checked = schema.safeParse(v.value);
  if (checked.success) return { ok: true, value: checked.data };
  const i = checked.error.issues[0]!;
  return { ok: false, error: invalid([...at, ...i.path], i.message) };
}

/** The tools member: the same bytes as the run's last request (`same`: counted then), or new ones to read. */
export function toolsMember(
  body: Buffer,
  scanned: ScannedObject,
  prior: Buffer | null,
): { same: true; bytes: Buffer } | { same: false; span: Span | null } {
  const span = scanned.members.get('tools') ?? null;
  if (span && prior && sameBytes(body, span, prior)) return { same: true, bytes: prior };
  return { same: false, span };
}

/** The tools' bytes kept for the run's next request (the prior's own when the same). */
export const keptTools = (body: Buffer, t: ReturnType<typeof toolsMember>): Buffer | null =>
  t.same ? t.bytes : t.span ? NodeBuffer.from(body.subarray(t.span.start, t.span.end)) : null;

/**
 * The request's bytes with the gateway's changes spliced in: the run's model, the answer's limit
 * when a budget lowered it (under `limitKey`), the run's seed when the agent sent none (`seed` is read by the simulated
 * models, the only upstream the gateway gives one), then a protocol's own (`more`).
 */
export function withChanges(
  body: Buffer,
  scanned: ScannedObject,
  c: CallChanges,
  limitKey: string,
  agentSeed: boolean,
  more: Array<[string, string]> = [],
): Buffer[] {
  const set: Array<[string, string]> = [];
  if (c.model !== undefined) set.push(['model', JSON.stringify(c.model)]);
  if (c.maxOutputTokens !== undefined) set.push([limitKey, String(c.maxOutputTokens)]);
  if (c.seed !== undefined && !agentSeed) set.push(['seed', String(c.seed)]);
  return splice(body, scanned, [...set, ...more]);
}

/** A request located in its bytes (its conversation array under `arrayKey`, compared with `prior`'s) and the members `schema` names read: or why it is refused. */
export function scanRequest<S extends z.ZodObject>(
  body: Buffer,
  arrayKey: string,
  prior: PriorArray | null,
  schema: S,
  what: string,
): { ok: true; scanned: ScannedObject; fields: z.infer<S> } | { ok: false; error: WireError } {
  const scanned = scanObject(body, arrayKey, prior);
  if (!scanned) return { ok: false, error: unreadable(body, what) };
  if (scanned.duplicate !== null)
    return { ok: false, error: badRequest(`Request body gives '${scanned.duplicate}' more than once`) };
  const fields = readMembers(body, scanned, schema, what);
  return fields.ok ? { ok: true, scanned, fields: fields.value } : fields;
}
