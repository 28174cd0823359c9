// A CSV file written row by row (csvLine: csv-stringify's bytes), through an atomic writer in
// 256 KB chunks: steps.csv and runs.csv never exist whole in memory, however many rows they have.
import { AtomicFileWriter } from '../../results/atomic.ts';
import { LineBuffer } from '../../results/jsonl.ts';
import { csvLine } from './csv.ts';

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
  // Each line encoded as it comes: a 256 KB string of appended lines cost more to flatten and encode at once.
  private readonly lines: LineBuffer;
  private header = true;

  constructor(readonly file: string) {
    this.out = new AtomicFileWriter(file);
    this.lines = new LineBuffer((bytes) => this.out.write(bytes));
  }

  /** The first row also writes the header (its keys); no rows, an empty file, as toCsv gives. */
  add(row: Record<string, unknown>): void {
    this.addLine(csvLine(row), () => row);
  }

  /** A line made already (`csvLine(row)`); `header` gives its row, for the header line before the first. */
  addLine(line: string, header: () => Record<string, unknown>): void {
    if (this.header) this.lines.writeLine(csvLine(header(), true));
    this.header = false;
    this.lines.writeLine(line);
  }

  commit(): void {
    this.lines.flush();
    this.out.commit();
  }

  abandon(): void {
    this.out.abandon();
  }
}
