import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../contracts/paths.ts';

export const FILES = {
  meta: 'meta.json',
  steps: 'steps.jsonl',
  runs: 'runs.jsonl',
  stepsCsv: 'steps.csv',
  runsCsv: 'runs.csv',
  summaryCsv: 'summary.csv',
  stepIndexCsv: 'steps_by_index.csv',
  fitCsv: 'fit.csv',
  ratiosCsv: 'step_ratios.csv',
  savingsCsv: 'step_limit_savings.csv',
  repriceCsv: 'repricing.csv',
  html: 'report.html',
  markdown: 'summary.md',
  charts: 'charts',
  /** Task queue: queue length, calls and tokens per round; tokens per role; each constraint on vs off. */
  taskqueueRoundsCsv: 'taskqueue_rounds.csv',
  taskqueueRolesCsv: 'taskqueue_roles.csv',
  taskqueueConstraintsCsv: 'taskqueue_constraints.csv',
  /** Spin detectors against the same configuration with them off: loops caught, false stops. */
  spinDetectorsCsv: 'spin_detectors.csv',
  transcripts: 'transcripts',
  /** Task-queue states written by --pause-at. */
  state: 'state',
} as const;

/** `--out NAME` → results/NAME; a value with a slash is a path. Default: a timestamp. */
export function resultsDirFor(out: string | undefined, now = new Date()): string {
  if (out && /[/\\]/.test(out)) return path.resolve(out);
  const name = out ?? now.toISOString().replace(/[:]/g, '-').replace(/\..+$/, '');
  return path.join(ROOT, 'results', name);
}

export const resultFile = (dir: string, name: keyof typeof FILES) => path.join(dir, FILES[name]);

export function hasRecords(dir: string): boolean {
  return fs.existsSync(resultFile(dir, 'runs')) || fs.existsSync(resultFile(dir, 'steps'));
}
