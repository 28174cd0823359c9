// Target 6: the scale sweep's runs on N threads (this one and N - 1 workers) against one thread,
// wall time, in this process (the sweep phase only: reports are one thread's work either way). N is
// the machine's available parallelism, so the ideal speed-up is N. Target 7: peak RSS of `bench`
// running that sweep with --workers N, in a child process as a user runs it (every thread, and its reports).
//
// A shared machine's speed drifts by ±15 % from one minute to the next (measured here: the same
// one-thread sweep took 7.9 s and 9.6 s minutes apart), so one pair of sweeps can land either side
// of the target. The speed-up is measured as several pairs, each pair's two sweeps back to back
// and the order alternating between pairs, and is the median of the pairs' ratios. Beside it, the
// machine's own ceiling at that time: N independent one-thread `bench` processes at once against
// one alone (what the cores deliver on this work when nothing is shared but the hardware).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runBenchChild, type ChildRun } from './child.ts';
import { scaleArgs, sweepFlags } from './scale.ts';
import { tempDir, timeSweep, type SweepTiming } from './sweep.ts';

export interface WorkersPair {
  one: SweepTiming;
  many: SweepTiming;
  /** Wall time on one thread ÷ on `workers` threads. */
  speedUp: number;
}

/** N independent `bench --workers 1` processes at once against one alone. */
export interface Ceiling {
  alone: ChildRun;
  together: ChildRun[];
  /** N × one alone's wall time ÷ the slowest of N at once: the throughput N cores give N independent sweeps. */
  speedUp: number;
}

export interface WorkersResult {
  workers: number;
  ceiling: Ceiling;
  pairs: WorkersPair[];
  /** The pair of median speed-up (the lower middle one for an even count). */
  median: WorkersPair;
  /** `bench` with `--workers N` in a child process. */
  child: ChildRun;
}

/** The pair of median speed-up; of an even count, the lower middle one (never a flattering average). */
export function medianPair(pairs: readonly WorkersPair[]): WorkersPair {
  const sorted = [...pairs].sort((a, b) => a.speedUp - b.speedUp);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

export async function measureWorkers(repeat: number, pairCount: number, workers = os.availableParallelism()): Promise<WorkersResult> {
  const pairs: WorkersPair[] = [];
  const sweep = (n: number) => timeSweep(sweepFlags(repeat), undefined, n);
  for (let i = 0; i < pairCount; i++) {
    // Even pairs run one thread first, odd pairs the workers first.
    const first = await sweep(i % 2 === 0 ? 1 : workers);
    const second = await sweep(i % 2 === 0 ? workers : 1);
    const [one, many] = i % 2 === 0 ? [first, second] : [second, first];
    pairs.push({ one, many, speedUp: one.ms / many.ms });
  }
  const dir = tempDir();
  try {
    const bench = (name: string, n: number) => runBenchChild([...scaleArgs(repeat, path.join(dir, name)), '--workers', String(n)]);
    const alone = await bench('alone', 1);
    const together = await Promise.all(Array.from({ length: workers }, (_, i) => bench(`together-${i}`, 1)));
    const ceiling = { alone, together, speedUp: (workers * alone.ms) / Math.max(...together.map((t) => t.ms)) };
    const child = await bench('workers', workers);
    return { workers, ceiling, pairs, median: medianPair(pairs), child };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
