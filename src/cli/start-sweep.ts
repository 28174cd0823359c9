// What `bench run` and `bench check` share once a SweepSpec is built: the shard slice, the spend cap,
// the results directory, the progress bar, and the sweep itself.
import fs from 'node:fs';
import os from 'node:os';
import type { Command } from 'commander';
import type { ModelTransport } from '../models/factory.ts';
import { createProgress } from '../runner/progress.ts';
import { hasRecords, resultsDirFor } from '../results/results-dir.ts';
import { makeWritableDir } from '../results/writable-dir.ts';
import { parseShard, shardSlice } from '../runner/shard.ts';
import { SpendLimiter } from '../runner/spend-limiter.ts';
import { expandSweep, type RunPlan, type SweepSpec } from '../runner/sweep.ts';
import { runSweep, type SweepOptions, type SweepOutcome } from '../runner/sweep-runner.ts';
import { parseOne as one } from '../runner/values.ts';
import { usd } from '../report/format/numbers.ts';
import { UsageError } from '../contracts/errors.ts';
import type { RunRecord } from '../contracts/records.ts';
import { redact } from '../models/redact.ts';
import { resultFile } from '../results/results-dir.ts';
import { modelServersOf } from '../runner/transport.ts';
import { addOtlpOptions, otlpTarget, type OtlpFlags } from './otlp-options.ts';
import { exitCodeFor, trapInterrupts } from './interrupt.ts';
import { describeContainment } from '../tools/containment.ts';
import { startAgentHost } from '../gateway/agent-cmd.ts';
import { TokenCounter } from '../meter/tokens.ts';
import { startSim } from '../serve/server.ts';
import { RUN_DEFAULTS } from '../runner/run-defaults.ts';
import type { StartOptions } from '../runner/plan.ts';
import { cacheBillingFor } from '../meter/prompt-cache.ts';

export function addStartOptions(cmd: Command): Command {
  return addOtlpOptions(cmd, 'each run, as it ends,')
    .option(
      '-j, --concurrency <n>',
      'simulated models: runs at once; a provider (openai:): model calls in flight at once, shared by up to 4×N open runs',
      RUN_DEFAULTS.concurrency,
    )
    .option('-o, --out <name>', 'results directory: results/<name>, or a path (default: a timestamp)')
    .option('--force', 'overwrite an existing results directory')
    .option('-q, --quiet', 'no progress bar')
    .option('--no-transcripts', 'do not save transcripts/<run_id>.json')
    .option(
      '--workers <n>',
      `threads that run simulated and replayed runs: this one and n - 1 worker threads (runs against a provider stay on this one); default: one per core (${os.availableParallelism()} here) for sweeps of ${MIN_RUNS_FOR_WORKERS} runs or more, else 1`,
    )
    .option(
      '--shard <i/n>',
      'run only shard i of n (a deterministic slice of the planned runs); join the pieces with bench merge',
    )
    .option(
      '--ci-max-spend <usd>',
      'hard cap on the metered spend of all runs together: a run that could cross it (at its --max-cost worst case) is not started. Sims meter what a real model would bill',
    );
}

export function spendLimiterFor(text: string | undefined, plans: RunPlan[]): SpendLimiter | undefined {
  if (text === undefined) return undefined;
  const cap = one(text, '--ci-max-spend', { min: 0 });
  if (plans.some((p) => p.settings.limits.max_cost_usd === null))
    throw new UsageError(
      '--ci-max-spend needs a per-run --max-cost (max_cost in budgets.yaml): it bounds what a run can spend before it starts',
    );
  return new SpendLimiter(cap);
}

/**
 * Below this many runs, a worker's start-up and JIT warm-up cost more than it saves. The sweep
 * phase of the scale sweep's configurations on 2 threads took, as long as on one: 20 runs 1.39-1.51x,
 * 100 runs 1.15-1.34x, 200 runs 0.79-0.94x (2026-12-03, fresh processes).
 */
export const MIN_RUNS_FOR_WORKERS = 200;

/** --workers: default the machine's available parallelism, from MIN_RUNS_FOR_WORKERS runs. */
export function parseWorkers(text: string | undefined, runs: number): number {
  if (text !== undefined) return one(text, '--workers', { integer: true, min: 1, max: 256 });
  return runs >= MIN_RUNS_FOR_WORKERS ? os.availableParallelism() : 1;
}

export interface StartedOutcome extends SweepOutcome {
  /** The exit code to end with when the sweep was interrupted by a signal (130 SIGINT, 143 SIGTERM). */
  interruptExitCode: number | null;
}

/** Runs a sweep with Ctrl-C handled: the first signal stops new model calls and the reports are still written. */
export async function runTrapped(
  options: Omit<SweepOptions, 'signal' | 'progress'>,
  quiet: boolean,
): Promise<StartedOutcome> {
  const trap = trapInterrupts();
  // Once per sweep that runs real code: what contains it on this machine (not with -q or --json).
  if (
    !quiet &&
    options.plans.some((p) => p.scenario.agent === 'react' && p.scenario.tools.some((t) => t.kind === 'python'))
  )
    console.error(`bench: ${describeContainment()}`);
  // A sweep of an external agent (--agent-cmd) runs each plan through the metering gateway.
  const host = options.spec.grid.agent.agent_cmd
    ? await startAgentHost({
        counter: new TokenCounter(),
        transport: options.transport,
        promptCache: options.spec.fixed.prompt_cache,
        cacheBilling: cacheBillingFor(options.spec.fixed.price),
        startSim,
      })
    : null;
  try {
    // Adaptive repeats plan up to max runs; the bar counts against that.
    const total = options.adaptive ? expandSweep(options.spec).length : options.plans.length;
    const outcome = await runSweep({
      ...options,
      ...(host ? { execute: host.execute } : {}),
      progress: createProgress(total, !quiet),
      signal: trap.signal,
    });
    return { ...outcome, interruptExitCode: outcome.status === 'interrupted' ? exitCodeFor(trap.received()) : null };
  } finally {
    await host?.close();
    trap.dispose();
  }
}

export async function startSweep(
  spec: SweepSpec,
  o: StartOptions,
  command: string[],
  transport?: ModelTransport,
  loop: Pick<SweepOptions, 'trace' | 'control' | 'adaptive'> = {},
): Promise<StartedOutcome> {
  const net = otlpTarget(o as OtlpFlags);
  const all = expandSweep(spec);
  const shard = o.shard === undefined ? undefined : parseShard(o.shard);
  // Adaptive repeats start with their first batch; the runner asks for the rest.
  const plans = loop.adaptive ? loop.adaptive.next([]) : shardSlice(all, shard);
  const concurrency = one(o.concurrency, '--concurrency', { integer: true, min: 1, max: 1024 });
  // Adaptive repeats may take up to every planned run: size the pool for that, not the first batch.
  const workers = parseWorkers(o.workers, loop.adaptive ? all.length : plans.length);
  const spend = spendLimiterFor(o.ciMaxSpend, plans);
  if (spend) console.error(`bench: ${worstCaseLine(loop.adaptive ? all : plans, spend.capUsd)}`);
  const dir = resultsDirFor(o.out);
  if (fs.existsSync(dir) && hasRecords(dir)) {
    if (!o.force) throw new UsageError(`${dir} already holds results (use --force to overwrite, or another --out)`);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  makeWritableDir(dir, '--out');
  // The OpenTelemetry SDK and exporters are loaded only for a sweep that sends spans.
  const live = net
    ? new (await import('../trajectories/live-spans.ts')).LiveSpans(
        resultFile(dir, 'steps'),
        net,
        spec.scenarios,
        modelServersOf(spec, transport).model_servers,
      )
    : undefined;
  const outcome = await runTrapped(
    {
      dir,
      spec,
      plans,
      concurrency,
      workers,
      transcripts: o.transcripts,
      command,
      ...loop,
      ...(transport ? { transport } : {}),
      ...(shard ? { shard: { ...shard, runs_total: all.length } } : {}),
      ...(spend ? { spend } : {}),
      ...(live ? { onRecorded: (r: RunRecord) => live.recorded(r) } : {}),
    },
    Boolean(o.quiet || o.json),
  );
  if (live && net) {
    try {
      const sent = await live.finish();
      if (!o.json)
        console.error(
          `bench: sent ${sent.runs} run(s) as ${sent.spans} span(s) to ${redact(net.url!)} (${net.protocol})`,
        );
    } catch (e) {
      // The records are written whatever the endpoint did; say so and fail the command.
      throw new Error(
        `${redact((e as Error).message)} (the sweep's records are in ${dir}: bench export ${dir} --format otlp --otlp-endpoint sends them again)`,
      );
    }
  }
  // Adaptive repeats schedule more than their first batch: the runs scheduled are what was planned.
  reportSpend(outcome, outcome.runsPlanned);
  return outcome;
}

/** Before a capped sweep starts: the most it can spend, from each run's --max-cost and the cap. */
export function worstCaseLine(plans: readonly RunPlan[], capUsd: number): string {
  const worst = plans.reduce((sum, p) => sum + (p.settings.limits.max_cost_usd ?? 0), 0);
  const simulated = plans.every((p) => p.settings.model.startsWith('sim'));
  const billed = simulated ? ' (simulated model: nothing is billed; these are what a real model would bill)' : '';
  return `spend: at most ${usd(Math.min(worst, capUsd))} — ${plans.length} run(s) planned, up to ${usd(worst)} at their --max-cost, capped by --ci-max-spend ${usd(capUsd)}${billed}`;
}

/** Says when the spend cap (or a model that ignored max_tokens) stopped runs from starting. */
export function reportSpend(outcome: StartedOutcome, planned: number): void {
  const sp = outcome.spend;
  if (sp?.overrun_usd)
    console.error(
      `bench: a model returned more output than max_tokens, so runs spent ${usd(sp.overrun_usd)} beyond their budgets: no further run was started (${sp.runs_skipped} of ${planned} not started; ${usd(sp.spent_usd)} spent, ${sp.spent_usd > sp.cap_usd ? 'past' : 'within'} the ${usd(sp.cap_usd)} cap)`,
    );
  else if (sp?.stopped)
    console.error(
      `bench: spend cap ${usd(sp.cap_usd)} reached: ${sp.runs_skipped} of ${planned} run(s) not started (${usd(sp.spent_usd)} spent)`,
    );
}
