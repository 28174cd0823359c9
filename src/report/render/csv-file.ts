// A CSV file written row by row (csvLine: csv-stringify's bytes), through an atomic writer in
// 256 KB chunks: steps.csv and runs.csv never exist whole in memory, however many rows they have.
import { AtomicFileWriter } from '../../results/atomic.ts';
import { csvLine } from './csv.ts';

const CHUNK = 256 * 1024;

/** Fills `file` through `add`; the file appears whole when `fill` succeeds and is left as it was when it throws. */
export async function writeCsvFile(
  file: string,
  fill: (add: (row: Record<string, unknown>) => void) => void | Promise<void>,
): Promise<void> {
  const out = new CsvFileWriter(file);
  try {
    await fill((row) => out.add(row));
  } catch (e) {
    out.abandon();
    throw e;
  }
  out.commit();
}

export class CsvFileWriter {
  private readonly out: AtomicFileWriter;
  private chunk = '';
  private header = true;

  constructor(readonly file: string) {
    this.out = new AtomicFileWriter(file);
  }

  /** The first row also writes the header (its keys); no rows, an empty file, as toCsv gives. */
  add(row: Record<string, unknown>): void {
    if (this.header) this.chunk += csvLine(row, true);
    this.header = false;
    this.chunk += csvLine(row);
    if (this.chunk.length >= CHUNK) {
      this.out.write(this.chunk);
      this.chunk = '';
    }
  }

  commit(): void {
    this.out.write(this.chunk);
    this.out.commit();
  }

  abandon(): void {
    this.out.abandon();
  }
}
