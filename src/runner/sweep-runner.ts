// Runs a planned sweep into a results directory: records stream to disk as they happen,
// workers pull runs one at a time (nothing is kept per run; `concurrency` of them, or 4× that sharing
// `concurrency` call slots against a provider), reports are built at the end.
import fs from 'node:fs';
import path from 'node:path';
import { TokenCounter } from '../meter/tokens.ts';
import { callsProvider, type ModelTransport } from '../models/factory.ts';
import { modelServersOf } from './transport.ts';
import type { BuiltReports } from '../report/build.ts';
import type { Scenario } from '../scenario/schema.ts';
import { ToolRegistry } from '../tools/registry.ts';
import { writeJsonAtomic } from '../results/atomic.ts';
import { redact } from '../models/redact.ts';
import { MemoryGuard, releaseMemory } from './release-memory.ts';
import { JsonlWriter } from '../results/jsonl.ts';
import { gitCommit, versions, type Meta } from '../results/meta.ts';
import type { Progress } from './progress.ts';
import { scenarioDigest } from '../results/digest.ts';
import { forEachConcurrently } from './pool.ts';
import { CallSlots } from './call-slots.ts';
import type { RunRecord } from '../contracts/records.ts';
import { FILES, resultFile } from '../results/results-dir.ts';
import { executeRun, notStartedRecord, type RunDeps, type RunResult } from './run-one.ts';
import type { AdaptiveSampling, Shard, SpendState } from '../contracts/sweep-state.ts';
import type { SpendLimiter } from './spend-limiter.ts';
import { stepLine } from '../results/step-line.ts';
import type { RunPlan, SweepSpec } from './sweep.ts';
import { buildTranscript } from './transcript.ts';
import { poolFor } from './workers/worker-pool.ts';

/** Runs open per call slot against a provider: enough waiting runs that a freed slot is taken at once. */
const OPEN_RUNS_PER_SLOT = 4;
/**
 * Runs queued per worker thread. This thread runs runs too, and refills the workers' queues only
 * between slices of its own work (contracts/event-loop.ts): 8 covers a slice with the scale sweep's
 * runs (~6 ms each) and costs at most 8 runs of one worker finishing alone at the end.
 */
const QUEUED_PER_WORKER = 8;

export interface SweepOptions {
  dir: string;
  spec: SweepSpec;
  /** The runs to do now: the whole sweep, or what a resume has left. */
  plans: RunPlan[];
  concurrency: number;
  transcripts: boolean;
  progress: Progress;
  command: string[];
  /** Once aborted (Ctrl-C), no new model call starts; unfinished runs are recorded as `interrupted`. */
  signal?: AbortSignal;
  /** `bench --resume`: continue the sweep this meta.json describes, `done` of its runs already recorded. */
  resume?: { meta: Meta; done: number };
  trace?: RunDeps['trace'];
  control?: RunDeps['control'];
  /** Which slice of the sweep `plans` is (recorded in meta.json for `bench merge`). */
  shard?: Shard & { runs_total: number };
  /** A cap on the metered spend of the whole sweep: runs that would cross it are not started. */
  spend?: SpendLimiter;
  /** The sweep's token counter (default: a fresh one); `bench perf` passes its own to count tokenizations. */
  counter?: TokenCounter;
  transport?: ModelTransport;
  /** Simulated and replayed runs on this many worker threads (default 1: this thread). */
  workers?: number;
  /** Adaptive repeats: `plans` is the first batch; `next` gets every finished record and returns the next batch (empty: done). */
  adaptive?: { sampling: AdaptiveSampling; next: (finished: readonly RunRecord[]) => RunPlan[] };
  /** Called with each run's record once it and its steps are written (bench run --otlp-endpoint sends its spans). */
  onRecorded?: (record: RunRecord) => void;
  /** Runs one planned run; default: the built-in loops (executeRun). `--agent-cmd` runs an external agent instead. */
  execute?: (plan: RunPlan, deps: RunDeps) => Promise<RunResult>;
}

export interface SweepOutcome extends BuiltReports {
  dir: string;
  status: Meta['status'];
  runsDone: number;
  runsPlanned: number;
  spend?: SpendState;
}

function freshMeta(o: SweepOptions): Meta {
  return {
    tool: 'loopbench',
    version: versions().loopbench!,
    status: 'running',
    created_at: new Date().toISOString(),
    finished_at: null,
    // The command line may carry a key or a credentialed --base-url; meta.json must not.
    command: o.command.map((arg) => redact(arg)),
    scenarios: o.spec.scenarios.map((s) => s.id),
    scenario_files: o.spec.scenarios.map((s) => path.resolve(s.file)),
    scenario_digests: Object.fromEntries(o.spec.scenarios.map((s) => [s.id, scenarioDigest(s)])),
    ...modelServersOf(o.spec, o.transport),
    grid: o.spec.grid,
    fixed: o.spec.fixed,
    repeat: o.spec.repeat,
    seed: o.spec.seed,
    runs_planned: o.plans.length,
    runs_done: 0,
    options: { concurrency: o.concurrency, transcripts: o.transcripts },
    versions: versions(),
    git_commit: gitCommit(),
    ...(o.shard ? { shard: o.shard } : {}),
    ...(o.adaptive ? { adaptive: o.adaptive.sampling } : {}),
  };
}

export async function runSweep(o: SweepOptions): Promise<SweepOutcome> {
  const meta = await executeSweep(o);
  releaseMemory();
  // Loaded on first use: the chart renderer (vega, resvg) is heavy and only needed here.
  const { buildReports } = await import('../report/build.ts');
  const built = await buildReports(o.dir);
  return {
    ...built,
    dir: o.dir,
    status: meta.status,
    runsDone: meta.runs_done,
    runsPlanned: meta.runs_planned,
    ...(o.spend ? { spend: o.spend.state } : {}),
  };
}

/** The runs and their records (meta.json, steps.jsonl, runs.jsonl, transcripts), without the reports; returns the final meta. */
export async function executeSweep(o: SweepOptions): Promise<Meta> {
  fs.mkdirSync(o.dir, { recursive: true });
  if (o.transcripts) fs.mkdirSync(path.join(o.dir, FILES.transcripts), { recursive: true });
  const meta: Meta = o.resume
    ? {
        ...o.resume.meta,
        status: 'running',
        failure: undefined,
        finished_at: null,
        runs_done: o.resume.done,
        resumed_at: [...(o.resume.meta.resumed_at ?? []), new Date().toISOString()],
      }
    : freshMeta(o);
  writeJsonAtomic(resultFile(o.dir, 'meta'), meta);
  // A second Ctrl-C exits at once (interrupt.ts): meta.json must not be left saying `running`.
  const onQuit = () => {
    if (meta.status !== 'running') return;
    meta.status = 'interrupted';
    meta.finished_at = new Date().toISOString();
    writeJsonAtomic(resultFile(o.dir, 'meta'), meta);
  };
  process.on('exit', onQuit);

  const steps = new JsonlWriter(resultFile(o.dir, 'steps'));
  const runs = new JsonlWriter(resultFile(o.dir, 'runs'));
  // Made on first use (a resumed sweep with nothing left to run needs none).
  let counter: TokenCounter | undefined;
  const registries = new Map<Scenario, ToolRegistry>();
  const tools = (plan: RunPlan) => {
    let r = registries.get(plan.scenario);
    if (!r) registries.set(plan.scenario, (r = ToolRegistry.fromDecls(plan.scenario.tools)));
    return r;
  };
  // Against a provider, --concurrency bounds the calls in flight and more runs than that are open
  // (see call-slots.ts); simulated runs are CPU work with nothing to overlap, one open run per slot.
  // External agents (--agent-cmd) make their own calls: -j of them run at once, whatever the model.
  const networked = !o.execute && o.plans.some((p) => callsProvider(p.settings, o.transport));
  const slots = networked ? new CallSlots(o.concurrency) : undefined;
  // An external agent (--agent-cmd) runs as its own process through the gateway in this thread.
  const pool = o.execute
    ? undefined
    : poolFor({
        ...o,
        networked,
        traced: Boolean(o.trace),
        recording: Boolean(o.transport?.record),
        replayFile: o.transport?.replay?.file,
      });
  o.signal?.addEventListener('abort', () => pool?.abort(), { once: true });
  // With workers, this thread is one of the --workers threads: lane 0 runs here, one run at a time,
  // and the other lanes keep every worker's queue full. (A thread that only fed the workers left a
  // core's worth of work undone on 2 cores and added a heap and a JIT warm-up: two workers beside
  // it took 7-24 % longer than one beside a running thread, fresh processes.)
  const openRuns = networked
    ? OPEN_RUNS_PER_SLOT * o.concurrency
    : pool
      ? 1 + QUEUED_PER_WORKER * pool.size
      : o.concurrency;
  const memory = new MemoryGuard();
  const inThisThread = async (plan: RunPlan) => {
    const result = await (o.execute ?? executeRun)(plan, {
      counter: (counter ??= o.counter ?? new TokenCounter()),
      tools,
      onStep: (r) => steps.writeLine(stepLine(r)),
      signal: o.signal,
      transcript: o.transcripts,
      transport: o.transport,
      trace: o.trace,
      control: o.control,
      slots,
      spend: o.spend,
    });
    return {
      record: result.record,
      transcript: o.transcripts ? buildTranscript(result.record, result.calls, result.messages) : undefined,
    };
  };
  const inWorker = async (plan: RunPlan) => {
    const done = await pool!.run(plan);
    steps.writeBytes(done.steps);
    return done;
  };
  const runPlan = async (plan: RunPlan, lane: number): Promise<RunRecord> => {
    if (o.signal?.aborted) {
      // After Ctrl-C: recorded as not started, flushed with the rest when the writer closes.
      const record = notStartedRecord(plan);
      runs.write(record);
      o.onRecorded?.(record);
      o.progress.tick(`${plan.configId}: interrupted`);
      return record;
    }
    const result = await (pool && lane > 0 ? inWorker(plan) : inThisThread(plan));
    steps.flush();
    runs.write(result.record);
    runs.flush();
    o.transport?.record?.save();
    // A run stopped before its first call has nothing to transcribe (and after Ctrl-C there may be
    // thousands of them, each a file write); --resume runs it again and writes its transcript.
    if (result.transcript && result.record.calls > 0)
      writeJsonAtomic(path.join(o.dir, FILES.transcripts, `${plan.runId}.json`), result.transcript);
    if (result.record.extra?.paused)
      writeJsonAtomic(path.join(o.dir, FILES.state, `${plan.runId}.json`), result.record.extra.state);
    o.onRecorded?.(result.record);
    // A run paused on purpose (--pause-at) is finished as far as this sweep goes; one cut by Ctrl-C is not.
    if (result.record.stop_reason !== 'interrupted' || result.record.extra?.paused) meta.runs_done++;
    o.progress.tick(`${plan.configId}: ${result.record.stop_reason}`);
    memory.check();
    return result.record;
  };
  // Kept only for adaptive repeats, which judge them between batches; a plain sweep keeps nothing per run.
  const finished: RunRecord[] = [];
  const keep = (record: RunRecord) => {
    if (o.adaptive) finished.push(record);
    return record;
  };
  const runBatch = (batch: RunPlan[]) =>
    forEachConcurrently(batch, openRuns, async (plan, lane) => {
      if (!o.spend) return void keep(await runPlan(plan, lane));
      // A run's own max-cost brake bounds what it can spend; the CLI insists on one under a cap.
      const worstCase = plan.settings.limits.max_cost_usd ?? Infinity;
      if (!(await o.spend.acquire(worstCase))) return;
      let spent = 0;
      try {
        spent = (await runPlan(plan, lane).then(keep)).cost_usd;
      } finally {
        o.spend.release(worstCase, spent);
      }
    });
  let failure: unknown = null;
  try {
    await runBatch(o.plans);
    // Adaptive repeats: the next batch once this one is judged; not after Ctrl-C or the spend cap.
    for (
      let batch = o.adaptive?.next(finished) ?? [];
      batch.length > 0 && !o.signal?.aborted && !o.spend?.state.stopped;
      batch = o.adaptive!.next(finished)
    ) {
      meta.runs_planned += batch.length;
      await runBatch(batch);
    }
  } catch (e) {
    failure = e;
  }
  try {
    await pool?.close();
  } catch (e) {
    failure ??= e;
  }
  // Closing flushes the last lines, which can fail too (a full disk): each is tried, the first failure kept.
  for (const close of [() => steps.close(), () => runs.close(), () => o.transport?.record?.save()]) {
    try {
      close();
    } catch (e) {
      failure ??= e;
    }
  }
  o.progress.stop();
  process.off('exit', onQuit);
  if (o.spend) meta.spend = o.spend.state;
  meta.status = failure
    ? 'failed'
    : o.signal?.aborted
      ? 'interrupted'
      : o.spend?.state.stopped
        ? 'capped'
        : meta.runs_done < meta.runs_planned
          ? 'interrupted'
          : 'complete';
  if (failure) meta.failure = failure instanceof Error ? failure.message : String(failure);
  meta.finished_at = new Date().toISOString();
  try {
    writeJsonAtomic(resultFile(o.dir, 'meta'), meta);
  } catch (e) {
    // Still no room: meta.json keeps saying `running`, and the original failure is the one to report.
    if (!failure) throw e;
  }
  if (failure) throw new SweepFailed(o.dir, meta.failure!, failure);
  return meta;
}

/** The sweep's records could not be written (a full disk, a vanished directory): the sweep stops, status `failed`. */
export class SweepFailed extends Error {
  constructor(dir: string, why: string, cause: unknown) {
    super(
      `the sweep stopped: ${why} (${dir}: status failed; the records written so far are kept; once fixed, finish it with: bench --resume ${dir})`,
      { cause },
    );
  }
}
