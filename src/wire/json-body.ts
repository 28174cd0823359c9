// A request body as bytes, located rather than parsed: where each top-level member's value sits,
// and where each element of one array member (the conversation) sits. The gateway parses only the
// members it reads and only the conversation's new elements, and forwards the body as it came
// with the few values it changes spliced in. An agent re-sends its whole conversation each call,
// so the elements an earlier body of the same run already had are recognised by comparing bytes
// (memcmp) with a copy of that body's array, not by scanning or parsing them again: a call costs
// what it adds, not its history.
import { Buffer } from 'node:buffer';
import {
  BACKSLASH,
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  COLON,
  COMMA,
  isSpace,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
} from '../contracts/json-bytes.ts';

/** A value's bytes: [start, end). */
export interface Span {
  start: number;
  end: number;
}

/**
 * An earlier body's array, kept to compare against: its bytes from the `[` to the end of its last
 * element (a copy, in a buffer reused call after call, so no request's body outlives its call), and
 * its elements' bounds, [start, end) pairs relative to the `[`.
 */
export interface PriorArray {
  bytes: Buffer;
  /** How many bytes of `bytes` are the array's (the buffer may be larger). */
  length: number;
  bounds: number[];
}

export interface ScannedArray {
  /** Index of the array's `[`. */
  open: number;
  /** Element k is [open + bounds[2k], open + bounds[2k + 1]). */
  bounds: number[];
  /** same[k] = 1: element k is byte for byte the prior array's element k (not scanned, nor to be parsed). */
  same: Uint8Array;
  /** Leading elements that are the prior's, with everything between them. */
  prefix: number;
}

/** Element k's span in the body. */
export const elementSpan = (a: ScannedArray, k: number): Span => ({
  start: a.open + a.bounds[2 * k]!,
  end: a.open + a.bounds[2 * k + 1]!,
});

export interface ScannedObject {
  /** Each top-level member's value, by key (decoded). */
  members: Map<string, Span>;
  /** A key given twice (JSON.parse keeps the last, a splice would change the first): the body is refused. */
  duplicate: string | null;
  /** Index of the closing `}`. */
  close: number;
  /** The member named when scanning, if it is an array. */
  array: ScannedArray | null;
}

function skipSpace(b: Buffer, i: number): number {
  while (i < b.length && isSpace(b[i])) i++;
  return i;
}

/** From an opening quote to just past its closing quote (found with memchr, so long strings cost little); -1 if unterminated. */
function skipString(b: Buffer, i: number): number {
  let from = i + 1;
  for (;;) {
    const q = b.indexOf(QUOTE, from);
    if (q < 0) return -1;
    let slashes = 0;
    for (let k = q - 1; k > i && b[k] === BACKSLASH; k--) slashes++;
    if (slashes % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/** Past an object or array, strings skipped whole; -1 if it never closes. Its contents are checked when parsed. */
function skipNested(b: Buffer, i: number): number {
  let depth = 0;
  for (let j = i; j < b.length; j++) {
    const c = b[j];
    if (c === QUOTE) {
      j = skipString(b, j);
      if (j < 0) return -1;
      j--;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
    else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (--depth === 0) return j + 1;
    }
  }
  return -1;
}

/** Past one value starting at i; -1 when there is none. */
function skipValue(b: Buffer, i: number): number {
  const c = b[i];
  if (c === QUOTE) return skipString(b, i);
  if (c === OPEN_OBJECT || c === OPEN_ARRAY) return skipNested(b, i);
  let j = i;
  while (j < b.length && !isSpace(b[j]) && b[j] !== COMMA && b[j] !== CLOSE_OBJECT && b[j] !== CLOSE_ARRAY) j++;
  return j > i ? j : -1;
}

/** How many leading elements of `prior` the array opening at `open` repeats byte for byte (the largest such prefix). */
function samePrefix(b: Buffer, open: number, prior: PriorArray): number {
  const equalUpTo = (k: number) => {
    const len = prior.bounds[2 * k - 1]!;
    return open + len <= b.length && b.compare(prior.bytes, 0, len, open, open + len) === 0;
  };
  const n = prior.bounds.length / 2;
  if (n === 0 || equalUpTo(n)) return n;
  // Equal up to k implies equal up to every shorter prefix: binary search for the largest.
  let lo = 0;
  let hi = n;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (equalUpTo(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

function scanArray(b: Buffer, open: number, prior: PriorArray | null): { array: ScannedArray; end: number } | null {
  let bounds: number[] = [];
  let prefix = 0;
  let i = skipSpace(b, open + 1);
  let closed = b[i] === CLOSE_ARRAY;
  if (prior && !closed) {
    prefix = samePrefix(b, open, prior);
    if (prefix > 0) {
      bounds = prior.bounds.slice(0, 2 * prefix);
      i = skipSpace(b, open + bounds[2 * prefix - 1]!);
      closed = b[i] === CLOSE_ARRAY;
      // A repeated element must end here too (a number could go on: 12 → 123).
      if (!closed && b[i] !== COMMA) return scanArray(b, open, null);
      if (!closed) i = skipSpace(b, i + 1);
    }
  }
  while (!closed) {
    const end = skipValue(b, i);
    if (end < 0) return null;
    bounds.push(i - open, end - open);
    i = skipSpace(b, end);
    if (b[i] === CLOSE_ARRAY) closed = true;
    else if (b[i] === COMMA) i = skipSpace(b, i + 1);
    else return null;
  }
  const n = bounds.length / 2;
  const same = new Uint8Array(n);
  same.fill(1, 0, prefix);
  // Past the prefix, an element equal to the prior's at the same place (a system prompt that changed while the rest did not).
  if (prior)
    for (let k = prefix; k < Math.min(n, prior.bounds.length / 2); k++) {
      const [s0, e0, s1, e1] = [bounds[2 * k]!, bounds[2 * k + 1]!, prior.bounds[2 * k]!, prior.bounds[2 * k + 1]!];
      if (e0 - s0 === e1 - s1 && b.compare(prior.bytes, s1, e1, open + s0, open + e0) === 0) same[k] = 1;
    }
  return { array: { open, bounds, same, prefix }, end: i + 1 };
}

/**
 * The array's bytes kept for the next comparison: written over `reuse` (the copy made of the body
 * the scan compared against) when it is large enough, else copied into a new buffer with room to grow.
 */
export function keepArray(b: Buffer, a: ScannedArray, reuse: PriorArray | null): PriorArray {
  const length = a.bounds.length ? a.bounds[a.bounds.length - 1]! : 0;
  const fits = reuse !== null && reuse.bytes.length >= length;
  const bytes = fits ? reuse.bytes : Buffer.allocUnsafeSlow(Math.max(4096, Math.ceil(length * 1.5)));
  // The prefix the scan found equal is there already: only what follows it is copied.
  const from = fits && a.prefix > 0 ? a.bounds[2 * a.prefix - 1]! : 0;
  b.copy(bytes, from, a.open + from, a.open + length);
  return { bytes, length, bounds: a.bounds };
}

function decodeKey(b: Buffer, start: number, end: number): string {
  const raw = b.toString('utf8', start + 1, end - 1);
  return raw.includes('\\') ? (JSON.parse(b.toString('utf8', start, end)) as string) : raw;
}

/**
 * Locates the members of the JSON object in `b`, and the elements of the array under `arrayKey`
 * (comparing them with `prior`'s where given). Null when `b` is not a well-formed JSON object at
 * this level; values other than the array's elements are located, not checked (parse what you read).
 */
export function scanObject(b: Buffer, arrayKey: string, prior: PriorArray | null): ScannedObject | null {
  const members = new Map<string, Span>();
  let duplicate: string | null = null;
  let array: ScannedArray | null = null;
  let i = skipSpace(b, 0);
  if (b[i] !== OPEN_OBJECT) return null;
  i = skipSpace(b, i + 1);
  let close = -1;
  if (b[i] === CLOSE_OBJECT) close = i;
  while (close < 0) {
    if (b[i] !== QUOTE) return null;
    const keyEnd = skipString(b, i);
    if (keyEnd < 0) return null;
    const key = decodeKey(b, i, keyEnd);
    i = skipSpace(b, keyEnd);
    if (b[i] !== COLON) return null;
    i = skipSpace(b, i + 1);
    let end: number;
    if (key === arrayKey && b[i] === OPEN_ARRAY) {
      const scanned = scanArray(b, i, prior);
      if (!scanned) return null;
      array = scanned.array;
      end = scanned.end;
    } else end = skipValue(b, i);
    if (end < 0) return null;
    if (members.has(key)) duplicate ??= key;
    members.set(key, { start: i, end });
    i = skipSpace(b, end);
    if (b[i] === COMMA) i = skipSpace(b, i + 1);
    else if (b[i] === CLOSE_OBJECT) close = i;
    else return null;
  }
  if (skipSpace(b, close + 1) !== b.length) return null;
  return { members, duplicate, close, array };
}

/** The JSON text of a span. */
export const spanText = (b: Buffer, s: Span) => b.toString('utf8', s.start, s.end);

/** Whether a span of a body holds exactly these bytes. */
export const sameBytes = (a: Buffer, s: Span, bytes: Buffer) =>
  s.end - s.start === bytes.length && a.compare(bytes, 0, bytes.length, s.start, s.end) === 0;

/**
 * The body with members set to new values (JSON text): a member it has gets its value replaced,
 * one it lacks is added before the closing brace. Everything else is the body's own bytes, in
 * pieces to be written in order: nothing is re-serialised.
 */
export function splice(
  b: Buffer,
  o: ScannedObject,
  set: ReadonlyArray<readonly [key: string, json: string]>,
): Buffer[] {
  const replaced = set.filter(([k]) => o.members.has(k)).map(([k, json]) => ({ span: o.members.get(k)!, json }));
  replaced.sort((x, y) => x.span.start - y.span.start);
  const added = set.filter(([k]) => !o.members.has(k));
  const pieces: Buffer[] = [];
  let at = 0;
  for (const r of replaced) {
    pieces.push(b.subarray(at, r.span.start), Buffer.from(r.json));
    at = r.span.end;
  }
  pieces.push(b.subarray(at, o.close));
  if (added.length)
    pieces.push(
      Buffer.from(`${o.members.size ? ',' : ''}${added.map(([k, json]) => `${JSON.stringify(k)}:${json}`).join(',')}`),
    );
  pieces.push(b.subarray(o.close));
  return pieces;
}
