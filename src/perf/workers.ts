// Target 6: the scale sweep's runs on N threads (this one and N - 1 workers) against one thread,
// wall time, in this process (the sweep phase only: reports are one thread's work either way). N is
// the machine's available parallelism, so the ideal speed-up is N. Target 7: peak RSS of `bench`
// running that sweep with --workers N, in a child process as a user runs it (every thread, and its reports).
//
// A shared machine's speed drifts by ±15 % from one minute to the next (measured here: the same
// one-thread sweep took 7.9 s and 9.6 s minutes apart), so one pair of sweeps can land either side
// of the target. The speed-up is measured as several pairs, each pair's two sweeps back to back
// and the order alternating between pairs, and is the median of the pairs' ratios. After each pair,
// one sample of the machine's own ceiling: N independent processes each running the same sweep
// phase on one thread, at once, against one alone (what the cores deliver on this work when nothing
// is shared but the hardware); the row sets the median pair against the median sample, so both
// span the same minutes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runBenchChild, runScriptChild, type ChildRun } from './child.ts';
import { scaleArgs, sweepFlags } from './scale.ts';
import { tempDir, timeSweep, type SweepTiming } from './sweep.ts';
import { medianItem } from '../stats/quantile.ts';

export interface WorkersPair {
  one: SweepTiming;
  many: SweepTiming;
  /** Wall time on one thread ÷ on `workers` threads. */
  speedUp: number;
}

/** One sample of the ceiling: N independent one-thread sweep phases at once against one alone. */
export interface Ceiling {
  alone: SweepTiming;
  together: SweepTiming[];
  /** N × one alone's wall time ÷ the slowest of N at once: the throughput N cores give N independent sweeps. */
  speedUp: number;
}

export interface WorkersResult {
  workers: number;
  pairs: WorkersPair[];
  /** The pair of median speed-up (the lower middle one for an even count). */
  median: WorkersPair;
  /** One sample after each pair. */
  ceilings: Ceiling[];
  /** The sample of median speed-up (the lower middle one for an even count). */
  ceiling: Ceiling;
  /** `bench` with `--workers N` in a child process. */
  child: ChildRun;
}

/** The item of median speed-up; of an even count, the lower middle one (never a flattering average). */
export const medianBySpeedUp = <T extends { speedUp: number }>(items: readonly T[]): T =>
  medianItem(items, (i) => i.speedUp);

/** The sweep phase on one thread in a fresh process (dist/perf-sweep.js), as timeSweep times it here. */
async function sweepChild(repeat: number): Promise<SweepTiming> {
  return JSON.parse((await runScriptChild('perf-sweep', [String(repeat), '1'])).stdout) as SweepTiming;
}

async function ceilingSample(repeat: number, workers: number): Promise<Ceiling> {
  const alone = await sweepChild(repeat);
  const together = await Promise.all(Array.from({ length: workers }, () => sweepChild(repeat)));
  return { alone, together, speedUp: (workers * alone.ms) / Math.max(...together.map((t) => t.ms)) };
}

export async function measureWorkers(
  repeat: number,
  pairCount: number,
  workers = os.availableParallelism(),
): Promise<WorkersResult> {
  const pairs: WorkersPair[] = [];
  const ceilings: Ceiling[] = [];
  const sweep = (n: number) => timeSweep(sweepFlags(repeat), undefined, n);
  for (let i = 0; i < pairCount; i++) {
    // Even pairs run one thread first, odd pairs the workers first.
    const first = await sweep(i % 2 === 0 ? 1 : workers);
    const second = await sweep(i % 2 === 0 ? workers : 1);
    const [one, many] = i % 2 === 0 ? [first, second] : [second, first];
    pairs.push({ one, many, speedUp: one.ms / many.ms });
    ceilings.push(await ceilingSample(repeat, workers));
  }
  const dir = tempDir();
  try {
    const child = await runBenchChild([...scaleArgs(repeat, path.join(dir, 'workers')), '--workers', String(workers)]);
    return { workers, pairs, median: medianBySpeedUp(pairs), ceilings, ceiling: medianBySpeedUp(ceilings), child };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
