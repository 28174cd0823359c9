// Runs a planned sweep into a results directory: records stream to disk as they happen,
// workers pull runs one at a time (nothing is kept per run; `concurrency` of them, or 4× that sharing
// `concurrency` call slots against a provider), reports are built at the end.
import fs from 'node:fs';
import path from 'node:path';
import { TokenCounter } from '../meter/tokens.ts';
import { callsProvider, type ModelTransport } from '../models/factory.ts';
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
import { executeRun, type RunDeps, type RunResult } from './run-one.ts';
import type { Shard, SpendState } from '../contracts/sweep-state.ts';
import type { SpendLimiter } from './spend-limiter.ts';
import { stepLine } from '../results/step-line.ts';
import type { RunPlan, SweepSpec } from './sweep.ts';
import { buildTranscript } from './transcript.ts';

/** Runs open per call slot against a provider: enough waiting runs that a freed slot is taken at once. */
const OPEN_RUNS_PER_SLOT = 4;

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
  };
}

export async function runSweep(o: SweepOptions): Promise<SweepOutcome> {
  const meta = await executeSweep(o);
  releaseMemory();
  // Loaded on first use: the chart renderer (vega, resvg) is heavy and only needed here.
  const { buildReports } = await import('../report/build.ts');
  const built = await buildReports(o.dir);
  return { ...built, dir: o.dir, status: meta.status, runsDone: meta.runs_done, runsPlanned: meta.runs_planned, ...(o.spend ? { spend: o.spend.state } : {}) };
}

/** The runs and their records (meta.json, steps.jsonl, runs.jsonl, transcripts), without the reports; returns the final meta. */
export async function executeSweep(o: SweepOptions): Promise<Meta> {
  fs.mkdirSync(o.dir, { recursive: true });
  if (o.transcripts) fs.mkdirSync(path.join(o.dir, FILES.transcripts), { recursive: true });
  const meta: Meta = o.resume
    ? { ...o.resume.meta, status: 'running', finished_at: null, runs_done: o.resume.done, resumed_at: [...(o.resume.meta.resumed_at ?? []), new Date().toISOString()] }
    : freshMeta(o);
  writeJsonAtomic(resultFile(o.dir, 'meta'), meta);

  const steps = new JsonlWriter(resultFile(o.dir, 'steps'));
  const runs = new JsonlWriter(resultFile(o.dir, 'runs'));
  const counter = o.counter ?? new TokenCounter();
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
  const openRuns = networked ? OPEN_RUNS_PER_SLOT * o.concurrency : o.concurrency;
  const memory = new MemoryGuard();
  const runPlan = async (plan: RunPlan): Promise<RunRecord> => {
    const result = await (o.execute ?? executeRun)(plan, { counter, tools, onStep: (r) => steps.writeLine(stepLine(r)), signal: o.signal, transcript: o.transcripts, transport: o.transport, trace: o.trace, control: o.control, slots });
    steps.flush();
    runs.write(result.record);
    runs.flush();
    o.transport?.record?.save();
    if (o.transcripts) {
      writeJsonAtomic(path.join(o.dir, FILES.transcripts, `${plan.runId}.json`), buildTranscript(result.record, result.calls, result.messages));
    }
    if (result.record.extra?.paused) writeJsonAtomic(path.join(o.dir, FILES.state, `${plan.runId}.json`), result.record.extra.state);
    // A run paused on purpose (--pause-at) is finished as far as this sweep goes; one cut by Ctrl-C is not.
    if (result.record.stop_reason !== 'interrupted' || result.record.extra?.paused) meta.runs_done++;
    o.progress.tick(`${plan.configId}: ${result.record.stop_reason}`);
    memory.check();
    return result.record;
  };
  try {
    await forEachConcurrently(o.plans, openRuns, async (plan) => {
      if (!o.spend) return void (await runPlan(plan));
      // A run's own max-cost brake bounds what it can spend; the CLI insists on one under a cap.
      const worstCase = plan.settings.limits.max_cost_usd ?? Infinity;
      if (!(await o.spend.acquire(worstCase))) return;
      let spent = 0;
      try {
        spent = (await runPlan(plan)).cost_usd;
      } finally {
        o.spend.release(worstCase, spent);
      }
    });
  } finally {
    steps.close();
    runs.close();
    o.transport?.record?.save();
    o.progress.stop();
  }
  if (o.spend) meta.spend = o.spend.state;
  meta.status = o.signal?.aborted ? 'interrupted' : o.spend?.state.stopped ? 'capped' : meta.runs_done < meta.runs_planned ? 'interrupted' : 'complete';
  meta.finished_at = new Date().toISOString();
  writeJsonAtomic(resultFile(o.dir, 'meta'), meta);
  return meta;
}
