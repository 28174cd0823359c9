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
    const line = `${JSON.stringify(record)}\n`;
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
