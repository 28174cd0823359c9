// Rebuilds every report artifact of a results directory from its records alone, so
// `bench report DIR` works on finished, interrupted and merged runs alike.
import fs from 'node:fs';
import { readJsonlLines } from '../runner/jsonl.ts';
import type { RunRecord, StepRecord } from '../runner/records.ts';
import { resultFile } from '../runner/results-dir.ts';
import { writeFileAtomic } from '../runner/atomic.ts';
import { ConfigAggregator, type ConfigSummary } from './aggregate.ts';
import { csvLine, runRow, stepRow, summaryRow, toCsv } from './csv.ts';

export interface BuiltReports {
  summary: ConfigSummary[];
  /** Lines of steps.jsonl / runs.jsonl that were not complete JSON and were skipped. */
  skippedLines: number;
}

const CHUNK_BYTES = 256 * 1024;

/**
 * Streams a JSONL file into a CSV, one row per record, handing each record to `each` as it passes:
 * memory stays flat however large the file (nothing is kept per record).
 */
async function jsonlToCsv<T>(from: string, to: string, row: (r: T) => Record<string, unknown>, each?: (r: T) => void): Promise<number> {
  const tmp = `${to}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  let skipped = 0;
  let header = true;
  let chunk = '';
  for await (const line of readJsonlLines(from)) {
    if (!line.ok) {
      skipped++;
      continue;
    }
    const record = line.value as T;
    each?.(record);
    const cells = row(record);
    if (header) chunk += csvLine(cells, true);
    header = false;
    chunk += csvLine(cells);
    if (chunk.length >= CHUNK_BYTES) {
      fs.writeSync(fd, chunk);
      chunk = '';
    }
  }
  fs.writeSync(fd, chunk);
  fs.closeSync(fd);
  fs.renameSync(tmp, to);
  return skipped;
}

export async function buildReports(dir: string): Promise<BuiltReports> {
  const configs = new ConfigAggregator();
  const skippedRuns = await jsonlToCsv<RunRecord>(resultFile(dir, 'runs'), resultFile(dir, 'runsCsv'), runRow, (r) => configs.add(r));
  const skippedSteps = await jsonlToCsv<StepRecord>(resultFile(dir, 'steps'), resultFile(dir, 'stepsCsv'), stepRow);
  const summary = configs.summaries();
  writeFileAtomic(resultFile(dir, 'summaryCsv'), toCsv(summary.map(summaryRow)));
  return { summary, skippedLines: skippedRuns + skippedSteps };
}
