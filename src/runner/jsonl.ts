import fs from 'node:fs';
import { AtomicFileWriter } from './atomic.ts';

const BUFFER_BYTES = 256 * 1024;

/** Appends records as whole lines. A crash can leave at most one partial last line, which readers detect and skip. */
export class JsonlWriter {
  private readonly fd: number;
  // Lines are encoded straight into one reused buffer: no array of strings to join and no
  // per-flush allocation, which matters at a line per model call.
  private readonly buffer = Buffer.allocUnsafe(BUFFER_BYTES);
  private used = 0;

  constructor(readonly file: string) {
    this.fd = fs.openSync(file, 'a');
  }

  write(record: unknown): void {
    this.writeLine(`${JSON.stringify(record)}\n`);
  }

  /** A line already serialised (ending in a newline). */
  writeLine(line: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    if (this.used + line.length * 3 > BUFFER_BYTES) {
      this.flush();
      if (line.length * 3 > BUFFER_BYTES) return this.writeAll(Buffer.from(line, 'utf8'));
    }
    this.used += this.buffer.write(line, this.used, 'utf8');
  }

  /** Buffered lines reach the file here; called at least at the end of every run. */
  flush(): void {
    if (this.used === 0) return;
    this.writeAll(this.buffer.subarray(0, this.used));
    this.used = 0;
  }

  /** One write of whole lines, retried on short writes, so a crash cuts at most the last line. */
  private writeAll(bytes: Uint8Array): void {
    let off = 0;
    while (off < bytes.length) off += fs.writeSync(this.fd, bytes, off, bytes.length - off);
  }

  close(): void {
    this.flush();
    fs.closeSync(this.fd);
  }
}

export interface JsonlRead<T> {
  records: T[];
  /** Lines that were not complete JSON (a crash's partial last line, or damage). */
  skipped: number;
}

/** Streams a JSONL file line by line, so memory stays flat whatever its size. */
export async function* readJsonlLines(file: string): AsyncGenerator<{ ok: true; value: unknown } | { ok: false; line: number }> {
  if (!fs.existsSync(file)) return;
  const { createInterface } = await import('node:readline');
  const rl = createInterface({ input: fs.createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let n = 0;
  for await (const line of rl) {
    n++;
    if (!line.trim()) continue;
    try {
      yield { ok: true, value: JSON.parse(line) };
    } catch {
      yield { ok: false, line: n };
    }
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
export async function filterJsonl<T>(file: string, keep: (record: T) => boolean): Promise<{ kept: number; dropped: number }> {
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
