// Shared by the gate tests: temporary budgets files and in-process sweeps.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadBudgets } from '../src/gate/load-budgets.ts';
import type { Shard } from '../src/contracts/sweep-state.ts';
import { shardSlice } from '../src/runner/shard.ts';
import type { SpendLimiter } from '../src/runner/spend-limiter.ts';
import { expandSweep } from '../src/runner/sweep.ts';
import { runSweep } from '../src/runner/sweep-runner.ts';

export const QUICK_SUM = path.resolve(import.meta.dirname, 'fixtures/quick-sum.yaml');
export const NO_PROGRESS = { tick() {}, stop() {} };

export function tempDir(prefix = 'loopbench-gate-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function writeBudgets(dir: string, yaml: string, name = 'budgets.yaml'): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, yaml);
  return file;
}

/** Runs the sweep a budgets file describes, in process (a shard of it when given). */
export async function runBudgets(
  file: string,
  out: string,
  o: { shard?: Shard; spend?: SpendLimiter; concurrency?: number } = {},
) {
  const { spec } = loadBudgets(file);
  const all = expandSweep(spec);
  const plans = shardSlice(all, o.shard);
  return runSweep({
    dir: out,
    spec,
    plans,
    concurrency: o.concurrency ?? 2,
    transcripts: true,
    progress: NO_PROGRESS,
    command: [],
    ...(o.shard ? { shard: { ...o.shard, runs_total: all.length } } : {}),
    ...(o.spend ? { spend: o.spend } : {}),
  });
}

/** A fixture built by whichever test asks first, then shared: tests stay independent of their order. */
export function once<T>(build: () => Promise<T>): () => Promise<T> {
  let built: Promise<T> | undefined;
  return () => (built ??= build());
}
