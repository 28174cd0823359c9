import fs from 'node:fs';

/** Appends records as whole lines. A crash can leave at most one partial last line, which readers detect and skip. */
export class JsonlWriter {
  private readonly fd: number;
  private buffer: string[] = [];
  private bytes = 0;

  constructor(readonly file: string) {
    this.fd = fs.openSync(file, 'a');
  }

  write(record: unknown): void {
    this.writeLine(`${JSON.stringify(record)}\n`);
  }

  /** A line already serialised (ending in a newline). */
  writeLine(line: string): void {
    this.buffer.push(line);
    this.bytes += line.length;
    if (this.bytes >= 64 * 1024) this.flush();
  }

  /** Buffered lines reach the file here; called at least at the end of every run. */
  flush(): void {
    if (this.buffer.length === 0) return;
    fs.writeSync(this.fd, this.buffer.join(''));
    this.buffer = [];
    this.bytes = 0;
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
