// In-process simulated sweeps for `bench perf`: planned from the same flags as `bench run`, run
// with the same runner into a temporary directory, and timed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { addRunOptions, buildSweepSpec, type RunOptions } from '../cli/run.ts';
import { addStartOptions, type StartOptions } from '../cli/start-sweep.ts';
import type { TokenCounter } from '../meter/tokens.ts';
import { expandSweep } from '../runner/sweep.ts';
import { readJsonlLines } from '../runner/jsonl.ts';
import type { RunRecord } from '../runner/records.ts';
import { resultFile } from '../runner/results-dir.ts';
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

/** Parses `bench run` flags (defaults included) into run options. */
export function runOptions(args: string[]): RunOptions & StartOptions {
  const cmd = addStartOptions(addRunOptions(new Command())).exitOverride();
  cmd.parse(args, { from: 'user' });
  return cmd.opts<RunOptions & StartOptions>();
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
 * Runs the sweep `bench run ARGS --no-transcripts -q` would, in this process, into a temporary
 * directory. Timed: the sweep from its start (meta.json) through every run, its metering and its
 * records, to the moment the runs are done. Not timed, and not done: reading the scenario files
 * and expanding the plan, and the reports, whose cost does not depend on metering and is measured
 * on its own (`bench report`, target 5).
 */
export async function timeSweep(args: string[], counter?: TokenCounter): Promise<SweepTiming> {
  const dir = tempDir();
  try {
    const options = runOptions(args);
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
    await executeSweep({ dir, spec, plans, concurrency: Number(options.concurrency), transcripts: false, progress, command: [], counter });
    const { steps, calls } = await recordedTotals(dir);
    return { cpuMs, ms, runs: plans.length, steps, calls };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
