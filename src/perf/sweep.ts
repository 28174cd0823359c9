// In-process simulated sweeps for `bench perf`: planned from the same flags as `bench run`, run
// with the same runner into a temporary directory, and timed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildSweepSpec, type RunOptions, type StartOptions } from '../runner/plan.ts';
import { RUN_DEFAULTS } from '../runner/run-defaults.ts';
import type { TokenCounter } from '../meter/tokens.ts';
import { expandSweep } from '../runner/sweep.ts';
import { readJsonlLines } from '../results/jsonl.ts';
import type { RunRecord } from '../contracts/records.ts';
import { resultFile } from '../results/results-dir.ts';
import { executeSweep } from '../runner/sweep-runner.ts';

export interface SweepTiming {
  /** CPU time of this process (user + system, all threads) during the sweep, in ms. */
  cpuMs: number;
  /** Wall-clock time, in ms. */
  ms: number;
  runs: number;
  steps: number;
  calls: number;
}

/** The options of a `bench run` sweep: values as the flags spell them (camelCase keys), over the defaults. */
export type SweepFlags = Partial<RunOptions>;

export function runOptions(flags: SweepFlags): RunOptions & StartOptions {
  return { ...RUN_DEFAULTS, transcripts: false, quiet: true, ...flags };
}

/** The command line that runs the same sweep: `{ maxCost: 'off' }` → `--max-cost off`. */
export function argvOf(flags: SweepFlags): string[] {
  return Object.entries(flags).flatMap(([key, value]) => [
    `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`,
    String(value),
  ]);
}

/** Runs, steps and model calls recorded in a results directory's runs.jsonl (streamed). */
export async function recordedTotals(dir: string): Promise<{ runs: number; steps: number; calls: number }> {
  const totals = { runs: 0, steps: 0, calls: 0 };
  for await (const line of readJsonlLines(resultFile(dir, 'runs'))) {
    if (!line.ok) continue;
    const run = line.value as RunRecord;
    totals.runs++;
    totals.steps += run.steps;
    totals.calls += run.calls;
  }
  return totals;
}

/** CPU time since `start` (from process.cpuUsage()), in ms. */
export function cpuMsSince(start: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
}

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-perf-'));
}

/**
 * Runs the sweep `bench run FLAGS --no-transcripts -q` would, in this process, into a temporary
 * directory. Timed: the sweep from its start (meta.json) through every run, its metering and its
 * records, to the moment the runs are done. Not timed, and not done: reading the scenario files
 * and expanding the plan, and the reports, whose cost does not depend on metering and is measured
 * on its own (`bench report`, target 5).
 */
export async function timeSweep(flags: SweepFlags, counter?: TokenCounter, workers = 1): Promise<SweepTiming> {
  const dir = tempDir();
  try {
    const options = runOptions(flags);
    const spec = buildSweepSpec(options);
    const plans = expandSweep(spec);
    const start = performance.now();
    const cpu = process.cpuUsage();
    let ms = 0;
    let cpuMs = 0;
    const progress = {
      tick() {},
      stop() {
        ms = performance.now() - start;
        cpuMs = cpuMsSince(cpu);
      },
    };
    await executeSweep({
      dir,
      spec,
      plans,
      concurrency: Number(options.concurrency),
      transcripts: false,
      progress,
      command: [],
      counter,
      workers,
    });
    const { steps, calls } = await recordedTotals(dir);
    return { cpuMs, ms, runs: plans.length, steps, calls };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
