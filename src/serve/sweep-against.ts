// Running a sweep against an OpenAI-compatible URL from code (no CLI): used by the concurrency
// benchmark, and by tests that compare served and in-process runs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildSweepSpec, type RunOptions, type StartOptions } from '../runner/plan.ts';
import { RUN_DEFAULTS } from '../runner/run-defaults.ts';
import { transportFrom, type TransportFlags } from '../runner/transport.ts';
import type { ModelTransport } from '../models/factory.ts';
import { readJsonl } from '../results/jsonl.ts';
import type { RunRecord, StepRecord } from '../contracts/records.ts';
import { resultFile } from '../results/results-dir.ts';
import { expandSweep } from '../runner/sweep.ts';
import { executeSweep } from '../runner/sweep-runner.ts';

export interface SweepResult {
  dir: string;
  runs: RunRecord[];
  steps: StepRecord[];
  /** Milliseconds from the first run's start to the last run's end (reports excluded). */
  runsMs: number;
}

/** Runs a sweep as `bench` would with these flags, minus the reports; `env` supplies OPENAI_API_KEY / OPENAI_BASE_URL. */
export async function sweepWith(
  flags: Partial<RunOptions & TransportFlags & StartOptions>,
  o: { env?: NodeJS.ProcessEnv; dir?: string; transport?: ModelTransport } = {},
): Promise<SweepResult> {
  const opts = { ...RUN_DEFAULTS, transcripts: false, ...flags };
  const transport = o.transport ?? transportFrom(opts, o.env ?? process.env);
  const spec = buildSweepSpec(opts, transport);
  const plans = expandSweep(spec);
  const dir = o.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-sweep-'));
  const started = performance.now();
  let runsMs = 0;
  await executeSweep({
    dir,
    spec,
    plans,
    concurrency: Number(opts.concurrency),
    transcripts: opts.transcripts,
    progress: { tick() {}, stop: () => void (runsMs = performance.now() - started) },
    command: [],
    transport,
  });
  const runs = (await readJsonl<RunRecord>(resultFile(dir, 'runs'))).records;
  const steps = (await readJsonl<StepRecord>(resultFile(dir, 'steps'))).records;
  return { dir, runs, steps, runsMs };
}
