import fs from 'node:fs';
import path from 'node:path';

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
  /** Calls that carry their time (imported logs and traces): per day, per model. */
  spendByDayCsv: 'spend_by_day.csv',
  spendByModelCsv: 'spend_by_model.csv',
  transcripts: 'transcripts',
  /** Task-queue states written by --pause-at. */
  state: 'state',
  /** The standalone gateway's process id, while it runs: a file left behind says it was killed before recording every run. */
  gatewayPid: 'gateway.pid',
} as const;

/** A moment as a file name: 2026-12-03T10-06-10. */
export const timestampName = (now: Date) => now.toISOString().replace(/[:]/g, '-').replace(/\..+$/, '');

/**
 * `--out NAME` → results/NAME in the working directory (the user's project, wherever loopbench is
 * installed); a value with a slash is a path. Default: a timestamp.
 */
export function resultsDirFor(out: string | undefined, now = new Date()): string {
  if (out && /[/\\]/.test(out)) return path.resolve(out);
  return path.resolve('results', out ?? timestampName(now));
}

export const resultFile = (dir: string, name: keyof typeof FILES) => path.join(dir, FILES[name]);

export function hasRecords(dir: string): boolean {
  return fs.existsSync(resultFile(dir, 'runs')) || fs.existsSync(resultFile(dir, 'steps'));
}
