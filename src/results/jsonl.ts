import fs from 'node:fs';
import { isSpace } from '../contracts/json-bytes.ts';
import { AtomicFileWriter } from './atomic.ts';

const BUFFER_BYTES = 256 * 1024;

/**
 * Lines encoded straight into one reused buffer, handed to `sink` a buffer at a time: no array of
 * strings to join, no long string to flatten and no per-flush allocation, which matters at a line
 * per model call or per step.
 */
export class LineBuffer {
  private readonly buffer = Buffer.allocUnsafe(BUFFER_BYTES);
  private used = 0;

  /** `sink` gets whole lines only; the bytes are reused after it returns. */
  constructor(private readonly sink: (bytes: Uint8Array) => void) {}

  /** A line already serialised (ending in a newline). */
  writeLine(line: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    if (!this.room(line.length * 3)) return this.sink(Buffer.from(line, 'utf8'));
    this.used += this.buffer.write(line, this.used, 'utf8');
  }

  /** One line as its start (a string) and its end, already UTF-8 (ending in a newline): never split across two sinks. */
  writeLineParts(head: string, tail: Uint8Array): void {
    if (!this.room(head.length * 3 + tail.length)) return this.sink(Buffer.concat([Buffer.from(head, 'utf8'), tail]));
    this.used += this.buffer.write(head, this.used, 'utf8');
    this.buffer.set(tail, this.used);
    this.used += tail.length;
  }

  /** Whole lines already encoded as UTF-8. */
  writeBytes(bytes: Uint8Array): void {
    if (!this.room(bytes.length)) return this.sink(bytes);
    this.buffer.set(bytes, this.used);
    this.used += bytes.length;
  }

  /** Room for up to `most` more bytes, flushing what is held if need be; false when they could never fit (then sent on their own, after what was held). */
  private room(most: number): boolean {
    if (this.used + most <= BUFFER_BYTES) return true;
    this.flush();
    return most <= BUFFER_BYTES;
  }

  flush(): void {
    if (this.used === 0) return;
    this.sink(this.buffer.subarray(0, this.used));
    this.used = 0;
  }
}

/** Appends records as whole lines. A crash can leave at most one partial last line, which readers detect and skip. */
export class JsonlWriter {
  private readonly fd: number;
  private readonly lines = new LineBuffer((bytes) => this.writeAll(bytes));

  constructor(readonly file: string) {
    this.fd = fs.openSync(file, 'a');
  }

  write(record: unknown): void {
    this.writeLine(`${JSON.stringify(record)}\n`);
  }

  /** A line already serialised (ending in a newline). */
  writeLine(line: string): void {
    this.lines.writeLine(line);
  }

  /** One line as its start and its end already encoded (LineBuffer.writeLineParts). */
  writeLineParts(head: string, tail: Uint8Array): void {
    this.lines.writeLineParts(head, tail);
  }

  /** Whole lines already encoded as UTF-8 (a worker's steps for one run). */
  writeBytes(bytes: Uint8Array): void {
    this.lines.writeBytes(bytes);
  }

  /** Buffered lines reach the file here; called at least at the end of every run. */
  flush(): void {
    this.lines.flush();
  }

  /** One write of whole lines, retried on short writes, so a crash cuts at most the last line. */
  private writeAll(bytes: Uint8Array): void {
    let off = 0;
    while (off < bytes.length) off += fs.writeSync(this.fd, bytes, off, bytes.length - off);
  }

  close(): void {
    try {
      this.flush();
    } finally {
      fs.closeSync(this.fd);
    }
  }
}

export interface JsonlRead<T> {
  records: T[];
  /** Lines that were not complete JSON (a crash's partial last line, or damage). */
  skipped: number;
}

/** Where a line sits in its file: what `readJsonlAt` needs to read it again. */
export interface LinePlace {
  offset: number;
  bytes: number;
}

/** A line and its 1-based number in the file (blank lines counted). */
export type JsonlLine = ({ ok: true; value: unknown } | { ok: false }) & { line: number } & LinePlace;

const NEWLINE = 0x0a;

/** Parses one line's bytes (no newline) into its value; throws on a line that is not JSON. */
export type LineParser = (bytes: Buffer) => unknown;

const parseJson: LineParser = (bytes) => JSON.parse(bytes.toString('utf8'));

/** Whether the first `end` bytes are blank as String.prototype.trim sees it, decoded only past JSON's whitespace when not plain ASCII. */
function isBlank(bytes: Buffer, end: number): boolean {
  let i = 0;
  while (i < end && isSpace(bytes[i])) i++;
  if (i === end) return true;
  const c = bytes[i]!;
  // \v, \f and non-ASCII spaces are whitespace to trim too.
  return (c === 0x0b || c === 0x0c || c >= 0x80) && !bytes.toString('utf8', i, end).trim();
}

/**
 * Streams a JSONL file line by line, so memory stays flat whatever its size. Each line comes with
 * its byte offset and length, so a reader can keep a few numbers per record instead of the record
 * and read it again later (the runs.csv of a 100,000-run sweep).
 */
export async function* readJsonlLines(file: string, parseLine: LineParser = parseJson): AsyncGenerator<JsonlLine> {
  if (!fs.existsSync(file)) return;
  let carry: Buffer = Buffer.alloc(0);
  let offset = 0;
  let n = 0;
  const parse = (bytes: Buffer, at: number): JsonlLine | null => {
    n++;
    // Lines end in \n; tolerate a \r before it (a file edited on Windows).
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
    if (isBlank(bytes, end)) return null;
    // Fields spelled out, not spread: a spread object takes V8's slow path, once per line.
    try {
      return { ok: true, value: parseLine(bytes.subarray(0, end)), line: n, offset: at, bytes: end };
    } catch {
      return { ok: false, line: n, offset: at, bytes: end };
    }
  };
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    const data = carry.length ? Buffer.concat([carry, chunk]) : chunk;
    let start = 0;
    for (let nl = data.indexOf(NEWLINE); nl !== -1; nl = data.indexOf(NEWLINE, start)) {
      const line = parse(data.subarray(start, nl), offset + start);
      if (line) yield line;
      start = nl + 1;
    }
    // Copied, not a view: a view would pin the whole chunk until the next newline.
    carry = Buffer.from(data.subarray(start));
    offset += start;
  }
  if (carry.length) {
    const line = parse(carry, offset);
    if (line) yield line;
  }
}

/** Bytes read at a time by readJsonlAt: a run's lines are mostly next to each other, read one at a time they were a system call each. */
const READ_AHEAD = 256 * 1024;

/** Records again, one at a time, from the places `readJsonlLines` gave for them, in the order given. */
export function* readJsonlAt(
  file: string,
  places: Iterable<LinePlace>,
  parseLine: LineParser = parseJson,
): Generator<unknown> {
  // Opened for the first place only: no places, no file needed (a results directory without runs.jsonl).
  let fd: number | undefined;
  // The bytes last read, and where in the file they start.
  let block = Buffer.alloc(0);
  let blockAt = 0;
  try {
    for (const place of places) {
      fd ??= fs.openSync(file, 'r');
      const start = place.offset - blockAt;
      if (start < 0 || start + place.bytes > block.length) {
        block = Buffer.allocUnsafe(Math.max(place.bytes, READ_AHEAD));
        blockAt = place.offset;
        let got = 0;
        while (got < place.bytes) {
          const read = fs.readSync(fd, block, got, block.length - got, place.offset + got);
          if (read === 0)
            throw new Error(`${file} ended before byte ${place.offset + place.bytes}: changed while being read?`);
          got += read;
        }
        block = block.subarray(0, got);
      }
      const at = place.offset - blockAt;
      yield parseLine(block.subarray(at, at + place.bytes));
    }
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

export async function readJsonl<T>(file: string): Promise<JsonlRead<T>> {
  const records: T[] = [];
  let skipped = 0;
  for await (const r of readJsonlLines(file)) {
    if (r.ok) records.push(r.value as T);
    else skipped++;
  }
  return { records, skipped };
}

/** Rewrites a JSONL file with only the records `keep` accepts; partial lines go too. Atomic: temp file, then rename. */
export async function filterJsonl<T>(
  file: string,
  keep: (record: T) => boolean,
): Promise<{ kept: number; dropped: number }> {
  let kept = 0;
  let dropped = 0;
  if (!fs.existsSync(file)) return { kept, dropped };
  const out = new AtomicFileWriter(file);
  let pending: string[] = [];
  const flush = () => {
    out.write(pending.join(''));
    pending = [];
  };
  try {
    for await (const line of readJsonlLines(file)) {
      if (line.ok && keep(line.value as T)) {
        pending.push(`${JSON.stringify(line.value)}\n`);
        kept++;
        if (pending.length >= 1000) flush();
      } else dropped++;
    }
    flush();
  } catch (e) {
    out.abandon();
    throw e;
  }
  out.commit();
  return { kept, dropped };
}

/**
 * Cuts a partial last line (a write a crash cut short: no newline after it) off `file`, so lines
 * appended next start on a line of their own. Returns the bytes cut (0 for a whole or missing file).
 */
export function cutPartialLine(file: string): number {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r+');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw e;
  }
  try {
    const size = fs.fstatSync(fd).size;
    const chunk = Buffer.allocUnsafe(64 * 1024);
    // Back from the end to the last newline.
    for (let end = size; end > 0;) {
      const start = Math.max(0, end - chunk.length);
      fs.readSync(fd, chunk, 0, end - start, start);
      const nl = chunk.subarray(0, end - start).lastIndexOf(NEWLINE);
      if (nl !== -1) {
        const keep = start + nl + 1;
        if (keep < size) fs.ftruncateSync(fd, keep);
        return size - keep;
      }
      end = start;
    }
    if (size > 0) fs.ftruncateSync(fd, 0);
    return size;
  } finally {
    fs.closeSync(fd);
  }
}
