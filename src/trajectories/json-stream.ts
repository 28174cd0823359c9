// A streaming reader for large JSON files (a 1M-step ATIF trajectory, a collector's OTLP export): the
// caller walks the outer containers member by member and reads the members it wants whole (each one
// JSON.parse'd on its own), so memory holds one member at a time, never the file. Bytes are scanned
// as bytes: JSON's structural characters are ASCII, which never occur inside a UTF-8 multi-byte
// sequence. Errors name a byte offset and what was expected, and never quote the file: a file given by
// mistake (a key, a config) must not have its contents printed.
import fs from 'node:fs';
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
import { grownTo } from '../contracts/typed-arrays.ts';

export type JsonPath = ReadonlyArray<string | number>;

/** What to do with a container member: walk into it, read it whole, or skip it without parsing. */
export type Visit = 'walk' | 'read' | 'skip';

export interface JsonVisitor {
  /** For each container (object or array) met at `path`: the file's top value has the path []. */
  visit(path: JsonPath, kind: 'object' | 'array'): Visit;
  /** A value read whole (a scalar, or a container `visit` said to read). */
  value(path: JsonPath, value: unknown): void;
  /** A walked container closed (after its last member). */
  close?(path: JsonPath, kind: 'object' | 'array'): void;
  /**
   * The member `visit` (or, for a scalar, `value`) was last called for has ended: its bytes are
   * [start, end) of the input, where a later pass can parse it without scanning (parseRanges).
   */
  ended?(start: number, end: number): void;
}

/** Not JSON, at a byte offset; the message says what was expected there, nothing of what was found. */
export class JsonStreamError extends Error {
  constructor(
    readonly byte: number,
    readonly why: string,
  ) {
    super(`not JSON (byte ${byte}: ${why})`);
  }
}

/** A member read whole larger than this is refused: bounded memory holds one member at a time. */
export const MAX_MEMBER_BYTES = 64 * 1024 * 1024;

const CHUNK = 1 << 20;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const hasBom = (b: Buffer) => b.length >= BOM.length && b[0] === BOM[0] && b[1] === BOM[1] && b[2] === BOM[2];
/** Outside a string, what a byte does to a captured value: nothing, starts a string, opens or closes a container. */
const PLAIN = 0;
const STRING = 1;
const OPENS = 2;
const CLOSES = 3;
const BYTE_CLASS = new Uint8Array(256);
BYTE_CLASS[QUOTE] = STRING;
BYTE_CLASS[OPEN_OBJECT] = BYTE_CLASS[OPEN_ARRAY] = OPENS;
BYTE_CLASS[CLOSE_OBJECT] = BYTE_CLASS[CLOSE_ARRAY] = CLOSES;
/** stringEnd's answers when the bytes end inside the string: after an unpaired backslash, or not. */
const IN_STRING_AT_END = -1;
const ESCAPED_AT_END = -2;

/**
 * The index of the quote that closes the string `b[i]` is in (`i` not just after a backslash), or
 * IN_STRING_AT_END / ESCAPED_AT_END. Quotes are found with indexOf (memchr), since most of a
 * trajectory's bytes are message text: a quote is escaped by an odd run of backslashes before it.
 */
function stringEnd(b: Buffer, i: number): number {
  for (;;) {
    const quote = b.indexOf(QUOTE, i);
    const stop = quote < 0 ? b.length : quote;
    // The run cannot reach back past `i`, where no escape is pending.
    let j = stop;
    while (j > i && b[j - 1] === BACKSLASH) j--;
    const escaped = (stop - j) % 2 === 1;
    if (quote < 0) return escaped ? ESCAPED_AT_END : IN_STRING_AT_END;
    if (!escaped) return quote;
    i = quote + 1;
  }
}
const endsScalar = (c: number) => c === COMMA || c === CLOSE_OBJECT || c === CLOSE_ARRAY || isSpace(c);

/** Where a walked container is: what comes next in it. */
interface Frame {
  kind: 'object' | 'array';
  /** The member's key (objects) or index (arrays). */
  key: string | number;
  state: 'first' | 'key' | 'colon' | 'value' | 'next';
}

/** A value being read or skipped: its bytes so far (read) and how deep in it the scan is. */
interface Capture {
  read: boolean;
  parts: Buffer[];
  /** Byte offset in the current chunk where it starts (or 0 for a continuation). */
  from: number;
  startByte: number;
  bytes: number;
  depth: number;
  inString: boolean;
  escaped: boolean;
  /** A number, true, false or null: ends at the first delimiter. */
  bare: boolean;
  /** A member key rather than a value. */
  isKey: boolean;
}

export interface StreamOptions {
  maxMemberBytes?: number;
  /** Each chunk of the bytes as it comes, before it is scanned (a hash of the file taken on the way); its bytes are reused after. */
  chunk?: (bytes: Buffer) => void;
}

/** Streams `file` through `visitor`; throws JsonStreamError (not JSON) or the visitor's own errors. */
export function streamJsonFile(file: string, visitor: JsonVisitor, o: StreamOptions = {}): void {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    if (!fs.fstatSync(fd).isFile()) throw new JsonStreamError(0, 'not a regular file');
    streamJsonChunks(fileChunks(fd), visitor, o);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The file a chunk at a time, read into one buffer: a fresh megabyte per read cost a 260 MB file more in
 * page faults than the reads did. Each chunk is overwritten by the next, which the scanner allows (it
 * copies what it keeps of one) and so must `StreamOptions.chunk`.
 */
function* fileChunks(fd: number): Generator<Buffer> {
  const chunk = Buffer.allocUnsafe(CHUNK);
  for (;;) {
    const n = fs.readSync(fd, chunk, 0, CHUNK, null);
    if (n === 0) return;
    yield chunk.subarray(0, n);
  }
}

/** The same over bytes already in memory (a request body). */
export function streamJsonBytes(bytes: Buffer, visitor: JsonVisitor, o: StreamOptions = {}): void {
  streamJsonChunks([bytes], visitor, o);
}

/** The same over bytes arriving in pieces, cut anywhere. */
export function streamJsonChunks(chunks: Iterable<Buffer>, visitor: JsonVisitor, o: StreamOptions = {}): void {
  const scanner = new Scanner(visitor, o.maxMemberBytes ?? MAX_MEMBER_BYTES);
  for (const chunk of chunks) {
    o.chunk?.(chunk);
    scanner.feed(chunk);
  }
  scanner.end();
}

class Scanner {
  private readonly stack: Frame[] = [];
  private capture: Capture | null = null;
  /** Offset in the file of the current chunk's first byte. */
  private base = 0;
  private topDone = false;
  private pendingKey: string | null = null;

  constructor(
    private readonly visitor: JsonVisitor,
    private readonly maxBytes: number,
  ) {}

  private path(): JsonPath {
    return this.stack.map((f) => f.key);
  }

  private fail(at: number, why: string): never {
    throw new JsonStreamError(this.base + at, why);
  }

  feed(b: Buffer): void {
    // A UTF-8 byte order mark before the value (editors on Windows write one) is not JSON, and not an error.
    let i = this.base === 0 && hasBom(b) ? BOM.length : 0;
    const n = b.length;
    while (i < n) {
      if (this.capture) {
        i = this.scanCapture(b, i);
        continue;
      }
      const c = b[i]!;
      if (isSpace(c)) {
        i++;
        continue;
      }
      i = this.structural(b, i, c);
    }
    if (this.capture) {
      const cap = this.capture;
      // Copied: the caller may reuse the chunk's bytes once feed returns (fileChunks does).
      if (cap.read) cap.parts.push(Buffer.from(b.subarray(cap.from)));
      cap.bytes += n - cap.from;
      cap.from = 0;
      if (cap.read && cap.bytes > this.maxBytes)
        this.fail(n, `a single value larger than ${this.maxBytes / (1024 * 1024)} MiB`);
    }
    this.base += n;
  }

  end(): void {
    const cap = this.capture;
    // A number at the very end of the input ends there.
    if (cap?.bare && !cap.isKey) this.finishCapture(Buffer.alloc(0), 0);
    if (this.capture) this.fail(0, cap!.inString ? 'the input ends inside a string' : 'the input ends inside a value');
    if (this.stack.length)
      this.fail(0, `the input ends before the closing ${this.stack.at(-1)!.kind === 'object' ? "'}'" : "']'"}`);
    if (!this.topDone) this.fail(0, 'the input is empty');
  }

  /** A non-space byte outside any capture: the grammar of the walked containers. */
  private structural(b: Buffer, i: number, c: number): number {
    const top = this.stack.at(-1);
    if (!top) {
      if (this.topDone) this.fail(i, 'more data after the end of the JSON value');
      return this.beginValue(b, i, c);
    }
    switch (top.state) {
      case 'first':
        if (top.kind === 'object') {
          if (c === CLOSE_OBJECT) return this.closeFrame(i);
          if (c !== QUOTE) this.fail(i, "expected a key in double quotes or '}'");
          return this.beginKey(b, i);
        }
        if (c === CLOSE_ARRAY) return this.closeFrame(i);
        return this.beginValue(b, i, c);
      case 'key':
        if (c !== QUOTE) this.fail(i, 'expected a key in double quotes');
        return this.beginKey(b, i);
      case 'colon':
        if (c !== COLON) this.fail(i, "expected ':' after a key");
        top.state = 'value';
        return i + 1;
      case 'value':
        return this.beginValue(b, i, c);
      case 'next':
        if (c === COMMA) {
          if (top.kind === 'object') top.state = 'key';
          else {
            top.key = (top.key as number) + 1;
            top.state = 'value';
          }
          return i + 1;
        }
        if (c === (top.kind === 'object' ? CLOSE_OBJECT : CLOSE_ARRAY)) return this.closeFrame(i);
        this.fail(i, `expected ',' or '${top.kind === 'object' ? '}' : ']'}'`);
    }
  }

  private closeFrame(i: number): number {
    const frame = this.stack.pop()!;
    // The closed container's path is its parent's current member.
    this.visitor.close?.(this.path(), frame.kind);
    this.afterValue();
    return i + 1;
  }

  /** A member is done: its container expects a comma or its end; the top value is done. */
  private afterValue(): void {
    const top = this.stack.at(-1);
    if (top) top.state = 'next';
    else this.topDone = true;
  }

  /** A value (or key) to capture begins at byte `i` of the current chunk. */
  private startCapture(i: number, how: Pick<Capture, 'read' | 'depth' | 'inString' | 'bare' | 'isKey'>): void {
    // Spelled out, not spread: a spread object took V8's slow path, once per member of a million-step file.
    this.capture = {
      read: how.read,
      parts: [],
      from: i,
      startByte: this.base + i,
      bytes: 0,
      depth: how.depth,
      inString: how.inString,
      escaped: false,
      bare: how.bare,
      isKey: how.isKey,
    };
  }

  private beginKey(b: Buffer, i: number): number {
    this.startCapture(i, { read: true, depth: 0, inString: true, bare: false, isKey: true });
    return i + 1;
  }

  private beginValue(b: Buffer, i: number, c: number): number {
    const top = this.stack.at(-1);
    if (top?.kind === 'object') top.key = this.pendingKey!;
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      const kind = c === OPEN_OBJECT ? 'object' : 'array';
      const visit = this.visitor.visit(this.path(), kind);
      if (visit === 'walk') {
        if (top) top.state = 'next';
        this.stack.push({ kind, key: kind === 'array' ? 0 : '', state: 'first' });
        return i + 1;
      }
      this.startCapture(i, { read: visit === 'read', depth: 1, inString: false, bare: false, isKey: false });
      return i + 1;
    }
    if (c === QUOTE) {
      this.startCapture(i, { read: true, depth: 0, inString: true, bare: false, isKey: false });
      return i + 1;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39) || c === 0x74 || c === 0x66 || c === 0x6e) {
      this.startCapture(i, { read: true, depth: 0, inString: false, bare: true, isKey: false });
      return i + 1;
    }
    return this.fail(i, 'expected a JSON value');
  }

  /** Scans a value being captured from `i`; returns where scanning goes on. */
  private scanCapture(b: Buffer, i: number): number {
    const cap = this.capture!;
    const n = b.length;
    if (cap.bare) {
      while (i < n && !endsScalar(b[i]!)) i++;
      return i < n ? this.finishCapture(b, i) : n;
    }
    // Every byte of every step passes here (once: the header pass skips the steps and notes where they
    // are, parseRanges reads them from there): one table lookup a byte outside strings, and inside them
    // a search for the closing quote (stringEnd).
    let depth = cap.depth;
    let inString = cap.inString;
    let escaped = cap.escaped;
    for (; i < n; i++) {
      if (inString) {
        if (escaped) {
          escaped = false;
          continue;
        }
        i = stringEnd(b, i);
        if (i < 0) {
          escaped = i === ESCAPED_AT_END;
          i = n;
          break;
        }
        inString = false;
        if (depth === 0) {
          cap.inString = false;
          return this.finishCapture(b, i + 1);
        }
        continue;
      }
      const k = BYTE_CLASS[b[i]!];
      if (k === PLAIN) continue;
      if (k === STRING) inString = true;
      else if (k === OPENS) depth++;
      else if (--depth === 0) {
        cap.depth = 0;
        return this.finishCapture(b, i + 1);
      }
    }
    cap.depth = depth;
    cap.inString = inString;
    cap.escaped = escaped;
    return n;
  }

  /** The captured value ends just before `end` in `b`: parse it (or drop it) and hand it on. */
  private finishCapture(b: Buffer, end: number): number {
    const cap = this.capture!;
    this.capture = null;
    if (!cap.read) {
      this.visitor.ended?.(cap.startByte, this.base + end);
      this.afterValue();
      return end;
    }
    const last = b.subarray(cap.from, end);
    const bytes = cap.parts.length ? Buffer.concat([...cap.parts, last]) : last;
    if (bytes.length > this.maxBytes) this.fail(end, `a single value larger than ${this.maxBytes / (1024 * 1024)} MiB`);
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch {
      // V8's message quotes the text: say only where the value is.
      throw new JsonStreamError(
        cap.startByte,
        cap.isKey
          ? 'a key that is not a valid JSON string'
          : cap.bare
            ? 'expected a JSON value'
            : `the value at ${describePath(this.path())} does not parse`,
      );
    }
    if (cap.isKey) {
      this.pendingKey = value as string;
      this.stack.at(-1)!.state = 'colon';
      return end;
    }
    this.visitor.value(this.path(), value);
    this.visitor.ended?.(cap.startByte, this.base + end);
    this.afterValue();
    return end;
  }
}

/** Byte ranges of a file in the order they were met: members one pass skipped, for another to parse. */
export class ByteRanges {
  // Typed arrays, not an array of pairs: a million-step trajectory's ranges are 12 MB, not ~100.
  private starts = new Float64Array(256);
  private lengths = new Uint32Array(256);
  length = 0;

  push(start: number, end: number): void {
    if (this.length === this.starts.length) {
      this.starts = grownTo(this.starts, this.length * 2);
      this.lengths = grownTo(this.lengths, this.length * 2);
    }
    this.starts[this.length] = start;
    // A member longer than 4 GiB is over any maxMemberBytes: its length saturates, and parseRanges refuses it.
    this.lengths[this.length++] = Math.min(end - start, 0xffffffff);
  }
  start(i: number): number {
    return this.starts[i]!;
  }
  bytes(i: number): number {
    return this.lengths[i]!;
  }
}

/**
 * Parses each range of `file` with JSON.parse, in order, without scanning the bytes between or in
 * them: the second pass over a file whose first pass found where its members are. `where(i)` names
 * the i-th member for messages (`steps[3]`); errors are JsonStreamError, as streamJsonFile's.
 */
export function parseRanges(
  file: string,
  ranges: ByteRanges,
  each: (i: number, value: unknown) => void,
  where: (i: number) => JsonPath,
  o: Pick<StreamOptions, 'maxMemberBytes'> = {},
): void {
  const max = o.maxMemberBytes ?? MAX_MEMBER_BYTES;
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    // A window of the file: consecutive members are sliced from it, one read per CHUNK as a scan would,
    // into the same bytes each time (fileChunks says why). A member larger than that gets a window of its
    // own, let go with the next one: kept, it would hold up to maxMemberBytes for the rest of the file.
    const chunk = Buffer.allocUnsafe(CHUNK);
    let window = chunk.subarray(0, 0);
    let from = 0;
    for (let i = 0; i < ranges.length; i++) {
      const start = ranges.start(i);
      const bytes = ranges.bytes(i);
      if (bytes > max) throw new JsonStreamError(start + max, `a single value larger than ${max / (1024 * 1024)} MiB`);
      if (start < from || start + bytes > from + window.length) {
        window = bytes > CHUNK ? Buffer.allocUnsafe(bytes) : chunk;
        from = start;
        let got = 0;
        while (got < window.length) {
          const n = fs.readSync(fd, window, got, window.length - got, from + got);
          if (n === 0) break;
          got += n;
        }
        window = window.subarray(0, got);
        if (got < bytes)
          throw new JsonStreamError(start + got, 'the file ends sooner than it did (changed while it was read?)');
      }
      let value: unknown;
      try {
        value = JSON.parse(window.toString('utf8', start - from, start - from + bytes));
      } catch {
        throw new JsonStreamError(start, `the value at ${describePath(where(i))} does not parse`);
      }
      each(i, value);
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** `steps[3].metrics`, for messages. */
export function describePath(path: JsonPath): string {
  if (path.length === 0) return 'the top level';
  return path.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? k : `.${k}`)).join('');
}

/** The bytes of `file` from `offset` to its end now (a file another writer is appending to). */
export function readFrom(file: string, offset: number): Buffer {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    const size = fs.fstatSync(fd).size;
    const bytes = Buffer.allocUnsafe(Math.max(0, size - offset));
    let got = 0;
    while (got < bytes.length) {
      const n = fs.readSync(fd, bytes, got, bytes.length - got, offset + got);
      if (n === 0) break;
      got += n;
    }
    return bytes.subarray(0, got);
  } finally {
    fs.closeSync(fd);
  }
}

/** Each non-blank line of a JSON-lines file, parsed: `where` is `file:line`; a line that is not JSON goes to `bad`, unquoted. */
export function forEachJsonLine(
  file: string,
  each: (value: unknown, where: string) => void,
  bad: (where: string, why: string) => void,
): void {
  forEachLine(file, (line, n, unended) => {
    if (!line.trim()) return;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      return bad(
        `${file}:${n}`,
        unended
          ? 'not JSON: a last line with no newline after it, cut short (a crash while it was written?)'
          : 'not JSON',
      );
    }
    each(v, `${file}:${n}`);
  });
}

/** How forEachLine treats a line it cannot hand on (default: a line too long fails the file). */
export interface LineOptions {
  /** An over-long line is skipped (its bytes dropped as they are read) and its number given here. */
  tooLong?: (n: number) => void;
  /** A line that is not valid UTF-8 is skipped and its number given here (default: decoded with U+FFFD). */
  badUtf8?: (n: number) => void;
  /** The longest line handed on (default MAX_MEMBER_BYTES). */
  maxLineBytes?: number;
}

/** Each line of a file (JSON lines), read in chunks: `line` without its newline (or \r\n) or a leading byte order mark, `n` 1-based; `unended` for a last line with no newline after it. */
export function forEachLine(
  file: string,
  each: (line: string, n: number, unended: boolean) => void,
  o: LineOptions = {},
): void {
  const max = o.maxLineBytes ?? MAX_MEMBER_BYTES;
  const strict = o.badUtf8 ? new TextDecoder('utf-8', { fatal: true }) : null;
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    if (!fs.fstatSync(fd).isFile()) throw new JsonStreamError(0, 'not a regular file');
    // The line being read, in pieces: joined once at its newline, so a long line is copied once,
    // and one past the cap is dropped piece by piece, never held beyond the cap.
    let parts: Buffer[] = [];
    let held = 0;
    let n = 0;
    /** Inside a line already reported too long: its bytes are dropped up to its newline. */
    let skipping = false;
    const tooLong = () => {
      if (!o.tooLong) throw new JsonStreamError(0, `line ${n + 1} is longer than ${max / (1024 * 1024)} MiB`);
      o.tooLong(++n);
    };
    const emit = (bytes: Buffer, last = false) => {
      n++;
      const from = n === 1 && hasBom(bytes) ? BOM.length : 0;
      const end = bytes.length > from && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
      if (!strict) return each(bytes.toString('utf8', from, end), n, last);
      let text: string;
      try {
        text = strict.decode(bytes.subarray(from, end));
      } catch {
        return o.badUtf8!(n);
      }
      each(text, n, last);
    };
    const line = (tail: Buffer) => (parts.length ? Buffer.concat([...parts, tail]) : tail);
    for (;;) {
      const chunk = Buffer.allocUnsafe(CHUNK);
      const got = fs.readSync(fd, chunk, 0, CHUNK, null);
      if (got === 0) break;
      const data = chunk.subarray(0, got);
      let start = 0;
      for (let nl = data.indexOf(0x0a); nl !== -1; nl = data.indexOf(0x0a, start)) {
        if (skipping) skipping = false;
        else if (held + nl - start > max) tooLong();
        else emit(line(data.subarray(start, nl)));
        parts = [];
        held = 0;
        start = nl + 1;
      }
      if (skipping || start === got) continue;
      // A whole chunk is kept as it is; a tail is copied, since a view would pin the whole chunk.
      parts.push(start === 0 ? data : Buffer.from(data.subarray(start)));
      held += got - start;
      if (held > max) {
        tooLong();
        skipping = true;
        parts = [];
        held = 0;
      }
    }
    if (held) emit(line(Buffer.alloc(0)), true);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Whether a file is JSON Lines (one value a line, more than one line) rather than one JSON document,
 * told by its content, not its name: its first non-blank line is a whole JSON value and another
 * non-blank line follows. A pretty-printed document's first line is not whole; a one-line file is
 * one document either way.
 */
export function isJsonLines(file: string): boolean {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    if (!fs.fstatSync(fd).isFile()) return false;
    let head = Buffer.alloc(0);
    let first: string | null = null;
    for (;;) {
      const chunk = Buffer.allocUnsafe(CHUNK);
      const got = fs.readSync(fd, chunk, 0, CHUNK, null);
      head = Buffer.concat([head, chunk.subarray(0, got)]);
      if (first === null) {
        const from = hasBom(head) ? BOM.length : 0;
        const text = head.subarray(from);
        // Past blank lines to the first one with a value.
        let start = 0;
        while (start < text.length && isSpace(text[start]!)) start++;
        const nl = text.indexOf(0x0a, start);
        if (nl !== -1) {
          first = text.toString('utf8', start, nl);
          head = Buffer.from(text.subarray(nl + 1));
          try {
            JSON.parse(first);
          } catch {
            return false;
          }
        } else if (got === 0 || head.length > MAX_MEMBER_BYTES) return false;
      }
      if (first !== null) {
        if (head.some((c) => !isSpace(c))) return true;
        head = Buffer.alloc(0);
      }
      if (got === 0) return false;
    }
  } finally {
    fs.closeSync(fd);
  }
}
