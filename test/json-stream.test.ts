// The streaming JSON reader gives each member what JSON.parse gives it, wherever the input is cut:
// strings with escaped quotes and backslashes, nesting, multi-byte text, members read or skipped.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../src/stats/random.ts';
import { JsonStreamError, streamJsonChunks, type JsonVisitor } from '../src/trajectories/json-stream.ts';

const PIECES = ['a', '"', '\\', '\\"', '\\\\', '{', '}', '[', ']', ',', ':', 'é', '😀', '\n', ' ', 'x"y', '\\u0022'];

function value(next: () => number, depth: number): unknown {
  const r = next();
  if (depth > 3 || r < 0.3) {
    const s = Array.from({ length: Math.floor(next() * 8) }, () => PIECES[Math.floor(next() * PIECES.length)]!);
    return r < 0.15
      ? s.join('')
      : r < 0.25
        ? Math.round(next() * 1e6) / 100
        : [true, false, null][Math.floor(next() * 3)];
  }
  if (r < 0.65) return Array.from({ length: Math.floor(next() * 4) }, () => value(next, depth + 1));
  return Object.fromEntries(
    Array.from({ length: Math.floor(next() * 4) }, (_, i) => [
      `k${i}${PIECES[i % PIECES.length]}`,
      value(next, depth + 1),
    ]),
  );
}

/** Cuts `bytes` into pieces of 1 to `most` bytes. */
function cut(bytes: Buffer, next: () => number, most: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length;) {
    const n = 1 + Math.floor(next() * most);
    out.push(bytes.subarray(i, i + n));
    i += n;
  }
  return out;
}

/** The top array's members, read (or counted when skipped), and whether its close was seen. */
function members(chunks: Buffer[], how: 'read' | 'skip'): { values: unknown[]; closed: boolean } {
  const values: unknown[] = [];
  let closed = false;
  const visitor: JsonVisitor = {
    visit: (path) => (path.length === 0 ? 'walk' : how),
    value: (_path, v) => values.push(v),
    close: (path) => void (path.length === 0 && (closed = true)),
  };
  streamJsonChunks(chunks, visitor);
  return { values, closed };
}

describe('streamJsonChunks', () => {
  it('reads each member as JSON.parse does, and skips them, however the bytes are cut', () => {
    const next = mulberry32(3);
    for (let doc = 0; doc < 300; doc++) {
      const top = Array.from({ length: 1 + Math.floor(next() * 6) }, () => value(next, 1));
      const text = JSON.stringify(top, null, doc % 2 ? 1 : undefined);
      const bytes = Buffer.from(text);
      for (const most of [1, 2, 3, 7, 64, bytes.length]) {
        const chunks = cut(bytes, next, most);
        expect(members(chunks, 'read').values).toEqual(top);
        // Skipped containers are scanned, not parsed: only the scalars are read.
        const skipped = members(chunks, 'skip');
        expect(skipped.closed).toBe(true);
        expect(skipped.values).toEqual(top.filter((v) => v === null || typeof v !== 'object'));
      }
    }
  });

  it('refuses a member whose string or container does not end, cut anywhere', () => {
    for (const text of ['[{"a":"b\\"}]', '[{"a":"b\\\\"}', '[["x"]', '[{"a":"\\']) {
      for (const most of [1, 2, 100]) {
        expect(() => members(cut(Buffer.from(text), mulberry32(most), most), 'read')).toThrow(JsonStreamError);
        expect(() => members(cut(Buffer.from(text), mulberry32(most), most), 'skip')).toThrow(JsonStreamError);
      }
    }
  });
});
