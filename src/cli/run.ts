// `bench [options]`: the default command — run a sweep and print its summary.
import path from 'node:path';
import { Command, Option } from 'commander';
import { DEFAULT_PRICED_MODEL } from '../meter/pricing.ts';
import { MODEL_SPECS_HELP } from '../models/factory.ts';
import { FILES, resultFile, resultsDirFor } from '../results/results-dir.ts';
import { wholeRecords } from '../report/data/load-runs.ts';
import { CONTEXT_HELP } from '../agents/context-spec.ts';
import { REFLECTIONS } from '../contracts/settings.ts';
import { LIMITS } from '../contracts/limits.ts';
import { planResume } from '../runner/resume.ts';
import { UsageError } from '../contracts/errors.ts';
import { addTaskqueueOptions } from './taskqueue-options.ts';
import { loadResumeState, parsePauseAt } from '../runner/taskqueue-plan.ts';
import { addTransportOptions } from './model-options.ts';
import { transportFrom } from '../runner/transport.ts';
import { RUN_DEFAULTS } from '../runner/run-defaults.ts';
import { buildSweepSpec, DEFAULT_SCENARIOS, type RunOptions, type StartOptions } from '../runner/plan.ts';
import {
  addStartOptions,
  parseWorkers,
  reportSpend,
  runTrapped,
  spendLimiterFor,
  startSweep,
  type StartedOutcome,
} from './start-sweep.ts';
import type { Meta } from '../results/meta.ts';
import type { RunPlan } from '../runner/sweep.ts';
import type { SpendLimiter } from '../runner/spend-limiter.ts';
import { usd } from '../report/format/numbers.ts';
import { printSummary } from './summary-table.ts';
import { groupOptions } from './help-groups.ts';
import { parseRepeatAuto, precisionSweep, REPEAT_AUTO } from '../runner/repeat-auto.ts';
import { DEFAULT_PRECISION } from '../report/stats/precision.ts';

/** One flag per row of the table of brakes. */
function addLimitOptions(cmd: Command): Command {
  for (const d of LIMITS) cmd.option(`${d.flag} <list>`, d.help, d.default);
  return cmd;
}

export function addRunOptions(cmd: Command): Command {
  return addTaskqueueOptions(
    addLimitOptions(
      addTransportOptions(cmd)
        .option(
          '-s, --scenario <ids>',
          `scenario ids or .yaml paths, comma-separated (default: ${DEFAULT_SCENARIOS.join(',')})`,
        )
        .option('-m, --model <specs>', `model(s) to sweep: ${MODEL_SPECS_HELP}`, RUN_DEFAULTS.model),
    ),
  )
    .option(
      '-n, --repeat <n>',
      `runs per configuration, each with its own seed; or auto: batches until each configuration's mean cost (and success rate, where checked) is estimated to --precision, or max — auto is auto:${REPEAT_AUTO.min}..${REPEAT_AUTO.max}:${REPEAT_AUTO.batch}, or give auto:MIN..MAX:BATCH (not with --shard; such a sweep cannot be --resumed: run it again)`,
      RUN_DEFAULTS.repeat,
    )
    .option(
      '--precision <p>',
      `with --repeat auto: the 95% interval half-width wanted, relative to the mean cost and in points of success rate (0.05 or 5%; default ${DEFAULT_PRECISION})`,
    )
    .option('--seed <n>', 'sweep seed: the same seed gives the same runs', RUN_DEFAULTS.seed)
    .option('--json', 'print the summary as JSON on stdout')
    .option('--pricing <file>', 'pricing table (YAML, like data/pricing.yaml)')
    .option(
      '--price-model <name>',
      `price the tokens as this model from the pricing table (default: ${DEFAULT_PRICED_MODEL}, or the openai: model swept)`,
    )
    .option('--price-in <usd>', 'custom input price, USD per 1M tokens (with --price-out)')
    .option('--price-out <usd>', 'custom output price, USD per 1M tokens (with --price-in)')
    .option('--price-cached <usd>', 'custom cached-input price, USD per 1M tokens (default: the input price)')
    .addOption(
      new Option(
        '--prompt-cache <on|off>',
        'bill repeated prompt prefixes at the cached rate, as providers do',
      ).default(RUN_DEFAULTS.promptCache),
    )
    .option(
      '--max-output-tokens <n>',
      'max_tokens per call; the budget brake projects this worst case',
      RUN_DEFAULTS.maxOutputTokens,
    )
    .option(
      '--resume <dir>',
      'finish an interrupted sweep: results/<dir>, or a path, with the settings of its meta.json (only -q, --json, --ci-max-spend — required for a sweep that ran under a cap — and the transport flags may go with it)',
    )
    .option(
      '--reflection <list>',
      `outer reflection to sweep: ${REFLECTIONS.join(', ')} (final: one critique per answer, REVISE reopens the loop; every-step: also a critique after each action)`,
      'off',
    )
    .option('--max-reflections <n>', 'how often a critique may reopen an answer per run', '2')
    .option('--context <list>', `context strategies to sweep: ${CONTEXT_HELP}`, 'full')
    .option(
      '--agent-cmd <cmd>',
      'run your own agent instead of the built-in loop: CMD is started once per run (through the shell) with OPENAI_BASE_URL pointing at the metering gateway, OPENAI_API_KEY a per-run virtual key, LOOPBENCH_SYSTEM/LOOPBENCH_GOAL/LOOPBENCH_SEED/LOOPBENCH_RUN_ID/LOOPBENCH_MAX_STEPS; its last stdout line (or {"answer": ...}) is the answer',
    );
}

/** Flags --resume accepts: the sweep itself comes from meta.json; how models are reached does not. */
const RESUME_COMPATIBLE = new Set([
  'resume',
  'quiet',
  'json',
  'ciMaxSpend',
  'baseUrl',
  'requestTimeout',
  'maxRetries',
  'record',
  'replay',
]);

export function registerRun(program: Command): void {
  groupOptions(
    addStartOptions(
      addRunOptions(
        program
          .command('run', { isDefault: true })
          .description('run a sweep (the default command): scenarios × settings × repeats'),
      ),
    ),
  ).action(async (o: RunOptions & StartOptions, cmd: Command) => {
    if (o.resume !== undefined) return resume(o, cmd);
    const transport = transportFrom(o);
    // A replayed sweep runs the models it recorded unless --model says otherwise.
    if (transport.replay && cmd.getOptionValueSource('model') === 'default')
      o.model = transport.replay.models().join(',') || o.model;
    const sampling = parseRepeatAuto(o.repeat, o.precision);
    if (sampling && o.shard !== undefined)
      throw new UsageError(
        "--shard: --repeat auto decides after each batch on all of a configuration's runs so far; a shard holds every n-th run only, so it cannot judge their precision, and shards deciding alone would stop at different points (give --repeat a count to shard)",
      );
    if (sampling && o.pauseAt !== undefined)
      throw new UsageError(
        '--pause-at: a paused run has no final cost or outcome, so --repeat auto could not judge it (give --repeat a count to pause)',
      );
    // Every repeat up to max is planned (the same run ids and seeds as --repeat MAX); batches are taken from it.
    const spec = buildSweepSpec(sampling ? { ...o, repeat: String(sampling.max) } : o, transport);
    const control = { pauseAt: parsePauseAt(o.pauseAt), resume: loadResumeState(o.resumeState, spec.scenarios) };
    const trace = o.trace ? (line: string) => process.stderr.write(`${line}\n`) : undefined;
    const outcome = await startSweep(spec, o, process.argv.slice(2), transport, {
      trace,
      control,
      ...(sampling ? { adaptive: precisionSweep(spec, sampling) } : {}),
    });
    report(o, outcome, control.pauseAt, sampling !== null);
  });
}

async function resume(o: RunOptions & StartOptions, cmd: Command): Promise<void> {
  const extra = cmd.options
    .map((opt) => opt.attributeName())
    .filter((k) => !RESUME_COMPATIBLE.has(k) && cmd.getOptionValueSource(k) === 'cli');
  if (extra.length > 0) {
    const flags = cmd.options.filter((opt) => extra.includes(opt.attributeName())).map((opt) => opt.long);
    throw new UsageError(
      `--resume takes the sweep's settings from its meta.json; drop ${flags.join(', ')} (accepted with --resume: -q, --json, --ci-max-spend and the transport flags --base-url, --request-timeout, --max-retries, --record, --replay)`,
    );
  }
  const transport = transportFrom(o);
  const dir = resultsDirFor(o.resume);
  const plan = await planResume(dir, transport);
  const options = plan.meta.options ?? { concurrency: 4, transcripts: true };
  const spend = resumedSpend(dir, plan.meta, o.ciMaxSpend, plan.todo);
  if (plan.todo.length === 0)
    console.error(`bench: ${dir}: all ${plan.done} runs are finished; rebuilding the reports only`);
  else
    console.error(
      `bench: resuming ${dir}: ${plan.done} runs finished, ${plan.todo.length} to run${spend ? ` (their spend capped at ${usd(spend.capUsd)})` : ''}`,
    );
  const sweep = {
    dir,
    spec: plan.spec,
    plans: plan.todo,
    concurrency: options.concurrency,
    workers: parseWorkers(undefined, plan.todo.length),
    transcripts: options.transcripts,
    command: plan.meta.command,
    resume: { meta: plan.meta, done: plan.done },
    transport,
    ...(spend ? { spend } : {}),
  };
  const outcome = await runTrapped(sweep, Boolean(o.quiet || o.json));
  reportSpend(outcome, plan.todo.length);
  report(o, outcome, undefined);
}

/**
 * A sweep that ran under a spend cap resumes only under a new one (`--ci-max-spend`, capping what
 * the resumed runs spend): the old cap is spent or nearly so, and running the rest uncapped would
 * break the promise the cap made.
 */
function resumedSpend(dir: string, meta: Meta, text: string | undefined, todo: RunPlan[]): SpendLimiter | undefined {
  if (meta.spend && text === undefined && todo.length > 0) {
    const why =
      meta.status === 'capped'
        ? `was stopped by its spend cap (${usd(meta.spend.cap_usd)}, ${usd(meta.spend.spent_usd)} spent, ${meta.spend.runs_skipped} run(s) not started)`
        : `ran under a spend cap (${usd(meta.spend.cap_usd)})`;
    throw new UsageError(
      `--resume ${dir}: the sweep ${why}; resume it with a new --ci-max-spend <usd>, which caps what the resumed runs spend`,
    );
  }
  return todo.length > 0 ? spendLimiterFor(text, todo) : undefined;
}

/**
 * A sweep in which every run ended in an error produced no result: its figures measure the error, not a
 * loop. Says the first run's error (a missing agent file names the path) and ends with exit 1.
 */
function noResult(outcome: StartedOutcome): void {
  if (outcome.runs.length === 0 || !outcome.runs.every((r) => r.stop_reason === 'error')) return;
  const [first] = wholeRecords(resultFile(outcome.dir, 'runs'), outcome.runs.slice(0, 1));
  const n = outcome.runs.length;
  console.error(
    `bench: no run produced a result: ${n === 1 ? 'the one run' : `all ${n} runs`} ended in an error; the first (${first!.run_id}): ${first!.stop_detail}`,
  );
  process.exitCode = 1;
}

/** Prints the summary, and says how to go on from a paused or interrupted sweep. */
function report(
  o: RunOptions & StartOptions,
  outcome: StartedOutcome,
  pauseAt: number | undefined,
  adaptive = false,
): void {
  printSummary(outcome, { json: o.json, dir: outcome.dir });
  noResult(outcome);
  // --repeat auto cannot be resumed (resume.ts): the way on is to run it again.
  if (outcome.spend?.stopped)
    console.error(
      adaptive
        ? 'bench: --repeat auto cannot be resumed: run the sweep again under a higher --ci-max-spend (the same seed takes the same runs)'
        : `bench: run the rest under a new cap with: bench --resume ${outcome.dir} --ci-max-spend <usd>`,
    );
  const paused = outcome.runs.filter((r) => r.extra?.paused).length;
  if (paused > 0)
    console.error(
      `paused ${paused} run(s) after round ${pauseAt}; state in ${path.join(outcome.dir, FILES.state)}/<run_id>.json — continue with --resume-state FILE`,
    );
  if (outcome.interruptExitCode !== null) {
    const next = adaptive
      ? '--repeat auto cannot be resumed: run the sweep again (the same seed takes the same runs)'
      : `finish them with: bench --resume ${outcome.dir}`;
    console.error(
      `bench: interrupted: ${outcome.runsDone} of ${outcome.runsPlanned} runs finished, the others are recorded as interrupted; ${next}`,
    );
    process.exitCode = outcome.interruptExitCode;
  }
}
