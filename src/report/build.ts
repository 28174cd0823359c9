// Rebuilds every report artifact of a results directory from its records alone, so
// `bench report DIR` works on finished, interrupted and merged runs alike.
import fs from 'node:fs';
import path from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { readJsonl, readJsonlLines } from '../runner/jsonl.ts';
import type { RunRecord, StepRecord } from '../runner/records.ts';
import { resultFile } from '../runner/results-dir.ts';
import { writeFileAtomic, writeJsonAtomic } from '../runner/atomic.ts';
import { summarizeConfigs, type ConfigSummary } from './aggregate.ts';
import { runRow, stepRow, summaryRow, toCsv } from './csv.ts';
import { constraintRows, roleRows, roundRows } from './taskqueue.ts';
import { queueLengthChart } from './taskqueue-chart.ts';

export interface BuiltReports {
  runs: RunRecord[];
  summary: ConfigSummary[];
  /** Lines of steps.jsonl / runs.jsonl that were not complete JSON and were skipped. */
  skippedLines: number;
}

/** steps.csv is written by streaming steps.jsonl, so memory stays flat for large sweeps. */
async function writeStepsCsv(dir: string): Promise<number> {
  const tmp = `${resultFile(dir, 'stepsCsv')}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  let skipped = 0;
  let header = true;
  let chunk: Array<Record<string, unknown>> = [];
  const flush = () => {
    if (chunk.length === 0) return;
    fs.writeSync(fd, stringify(chunk, { header, columns: Object.keys(chunk[0]!) }));
    header = false;
    chunk = [];
  };
  for await (const line of readJsonlLines(resultFile(dir, 'steps'))) {
    if (!line.ok) {
      skipped++;
      continue;
    }
    chunk.push(stepRow(line.value as StepRecord));
    if (chunk.length >= 2000) flush();
  }
  flush();
  fs.closeSync(fd);
  fs.renameSync(tmp, resultFile(dir, 'stepsCsv'));
  return skipped;
}

/** Only when the results hold task-queue runs. */
function writeTaskqueueCsvs(dir: string, runs: RunRecord[]): void {
  if (!runs.some((r) => r.agent === 'taskqueue')) return;
  const csv = (rows: object[]) => toCsv(rows as Array<Record<string, unknown>>);
  const rounds = roundRows(runs);
  writeFileAtomic(resultFile(dir, 'taskqueueRoundsCsv'), csv(rounds));
  writeFileAtomic(resultFile(dir, 'taskqueueRolesCsv'), csv(roleRows(runs)));
  writeFileAtomic(resultFile(dir, 'taskqueueConstraintsCsv'), csv(constraintRows(runs)));
  const chart = queueLengthChart(rounds);
  writeJsonAtomic(path.join(dir, 'charts', `${chart.name}.vl.json`), chart.spec);
}

export async function buildReports(dir: string): Promise<BuiltReports> {
  const { records: runs, skipped } = await readJsonl<RunRecord>(resultFile(dir, 'runs'));
  const skippedSteps = await writeStepsCsv(dir);
  const summary = summarizeConfigs(runs);
  writeFileAtomic(resultFile(dir, 'runsCsv'), toCsv(runs.map(runRow)));
  writeFileAtomic(resultFile(dir, 'summaryCsv'), toCsv(summary.map(summaryRow)));
  writeTaskqueueCsvs(dir, runs);
  return { runs, summary, skippedLines: skipped + skippedSteps };
}
