import fs from 'node:fs';
import path from 'node:path';

const tempName = (file: string) => path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);

/** Write to a temporary name, then rename: a reader never sees half a file, and a failed write leaves the old one. */
export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  const out = new AtomicFileWriter(file);
  out.write(data);
  out.commit();
}

/**
 * A new file only, whole or not at all: written under a temporary name, then linked to its name, which
 * fails with EEXIST when the file exists (or appears meanwhile) — nothing is ever replaced.
 */
export function createFileAtomic(file: string, data: string | Uint8Array): void {
  const tmp = tempName(file);
  fs.writeFileSync(tmp, data, { flag: 'wx' });
  try {
    fs.linkSync(tmp, file);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

export const writeJsonAtomic = (file: string, value: unknown) =>
  writeFileAtomic(file, `${JSON.stringify(value, null, 2)}\n`);

/** For a file written in pieces (streamed CSV, rewritten JSONL): the same temp-then-rename. */
export class AtomicFileWriter {
  private readonly tmp: string;
  private fd: number | null;

  constructor(readonly file: string) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    this.tmp = tempName(file);
    this.fd = fs.openSync(this.tmp, 'w');
  }

  write(data: string | Uint8Array): void {
    try {
      fs.writeFileSync(this.fd!, data);
    } catch (e) {
      this.abandon();
      throw e;
    }
  }

  commit(): void {
    fs.closeSync(this.fd!);
    this.fd = null;
    fs.renameSync(this.tmp, this.file);
  }

  /** Drop the temporary file; the target keeps its previous content. */
  abandon(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
    fs.rmSync(this.tmp, { force: true });
  }
}
