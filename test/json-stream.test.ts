// The streaming JSON reader gives each member what JSON.parse gives it, wherever the input is cut:
// strings with escaped quotes and backslashes, nesting, multi-byte text, members read or skipped.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../src/stats/random.ts';
import {
  ByteRanges,
  JsonStreamError,
  parseRanges,
  streamJsonChunks,
  streamJsonFile,
  type JsonVisitor,
} from '../src/trajectories/json-stream.ts';

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

describe('streamJsonFile', () => {
  it('reads members across the chunks of a file as JSON.parse does, and hands on every byte once', () => {
    // Members of ~300 KB in a 3 MB file: some straddle the 1 MiB reads, whose buffer each next read overwrites.
    const next = mulberry32(5);
    const top = Array.from({ length: 10 }, (_, i) =>
      i % 2 ? { text: 'é'.repeat(150_000 + i), n: i } : cut(Buffer.from('x'.repeat(300_000)), next, 7).map(String),
    );
    const bytes = Buffer.from(JSON.stringify(top));
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-stream-'));
    const file = path.join(tmp, 'doc.json');
    fs.writeFileSync(file, bytes);
    const values: unknown[] = [];
    const seen = createHash('sha256');
    try {
      streamJsonFile(
        file,
        { visit: (p) => (p.length === 0 ? 'walk' : 'read'), value: (_p, v) => values.push(v) },
        { chunk: (b) => seen.update(b) },
      );
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
    expect(values).toEqual(top);
    expect(seen.digest('hex')).toBe(createHash('sha256').update(bytes).digest('hex'));
  });
});

/** The top array's members' byte ranges, noted as they are skipped. */
function rangesOf(chunks: Buffer[]): ByteRanges {
  const ranges = new ByteRanges();
  streamJsonChunks(chunks, {
    visit: (p) => (p.length === 0 ? 'walk' : 'skip'),
    value: () => {},
    ended: (start, end) => ranges.push(start, end),
  });
  return ranges;
}

describe('parseRanges', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-ranges-'));
  const file = path.join(tmp, 'doc.json');
  const parse = (ranges: ByteRanges, o = {}) => {
    const out: unknown[] = [];
    parseRanges(
      file,
      ranges,
      (i, v) => (out[i] = v),
      (i) => ['steps', i],
      o,
    );
    return out;
  };

  it('parses the members a scan skipped, from where the scan found them, as JSON.parse does', () => {
    const next = mulberry32(9);
    for (let doc = 0; doc < 100; doc++) {
      // Members past the 1 MiB window, and one larger than it, among the small ones.
      const top = Array.from({ length: 1 + Math.floor(next() * 6) }, () => value(next, 1));
      if (doc % 25 === 0) top.push('é'.repeat(700_000), { big: 'x'.repeat(1_500_000) }, [1, 2]);
      const bytes = Buffer.from(JSON.stringify(top, null, doc % 2 ? 1 : undefined));
      fs.writeFileSync(file, bytes);
      const ranges = rangesOf(cut(bytes, next, doc % 3 ? 64 : bytes.length));
      expect(ranges.length).toBe(top.length);
      expect(parse(ranges)).toEqual(top);
    }
  });

  it('names the member that does not parse, one larger than the limit, and a file cut short since the scan', () => {
    const bytes = Buffer.from('[{"a":1},{"a":tru},{"b":"' + 'x'.repeat(100) + '"}]');
    fs.writeFileSync(file, bytes);
    const ranges = rangesOf([bytes]);
    expect(() => parse(ranges)).toThrow(new JsonStreamError(9, 'the value at steps[1] does not parse'));
    const big = new ByteRanges();
    big.push(ranges.start(2), ranges.start(2) + ranges.bytes(2));
    expect(() => parse(big, { maxMemberBytes: 50 })).toThrow(/byte 69: a single value larger than/);
    fs.writeFileSync(file, bytes.subarray(0, 30));
    expect(() => parse(big)).toThrow(/byte 30: the file ends sooner than it did/);
  });
});
