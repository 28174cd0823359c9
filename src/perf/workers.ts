// Target 6: the scale sweep's runs on N worker threads against one thread, wall time, in this
// process (the sweep phase only: reports are one thread's work either way). N is the machine's
// available parallelism, so the ideal speed-up is N. Target 7: peak RSS of `bench` running that
// sweep on N workers, in a child process as a user runs it (every thread, and its reports).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runBenchChild, type ChildRun } from './child.ts';
import { scaleArgs, sweepFlags } from './scale.ts';
import { tempDir, timeSweep, type SweepTiming } from './sweep.ts';

export interface WorkersResult {
  workers: number;
  one: SweepTiming;
  many: SweepTiming;
  /** Wall time on one thread ÷ on `workers` threads. */
  speedUp: number;
  /** `bench` with `--workers N` in a child process. */
  child: ChildRun;
}

export async function measureWorkers(repeat: number, workers = os.availableParallelism()): Promise<WorkersResult> {
  const many = await timeSweep(sweepFlags(repeat), undefined, workers);
  const one = await timeSweep(sweepFlags(repeat), undefined, 1);
  const dir = tempDir();
  try {
    const child = await runBenchChild([...scaleArgs(repeat, path.join(dir, 'workers')), '--workers', String(workers)]);
    return { workers, one, many, speedUp: one.ms / many.ms, child };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
