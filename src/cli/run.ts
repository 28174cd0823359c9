// `bench [options]`: the default command — run a sweep and print its summary.
import path from 'node:path';
import { Command, Option } from 'commander';
import { DEFAULT_PRICED_MODEL, loadPricing, priceFor, DEFAULT_PRICING_FILE, type PricingTable } from '../meter/pricing.ts';
import { validateModelSpec, MODEL_SPECS_HELP, simProfileFor, DEFAULT_TRANSPORT, type ModelTransport } from '../models/factory.ts';
import { FILES, resultsDirFor } from '../runner/results-dir.ts';
import { CONTEXT_HELP, parseContextList } from '../agents/context-spec.ts';
import { REFLECTIONS, type Price } from '../runner/settings.ts';
import type { Grid, SweepSpec } from '../runner/sweep.ts';
import { planResume } from '../runner/resume.ts';
import { parseChoiceList, parseNumberList, parseOne as one } from '../runner/values.ts';
import { resolveScenarios } from '../scenario/loader.ts';
import type { Scenario } from '../scenario/schema.ts';
import { UsageError } from './errors.ts';
import { TASKQUEUE_FLAG_DEFAULTS, addTaskqueueOptions, loadResumeState, modelPrices, parsePauseAt, parseRoleModels, roleModelSpecs, taskqueueGrid, type TaskqueueFlags } from './taskqueue-options.ts';
import { addTransportOptions, transportFrom, type TransportFlags } from './model-options.ts';
import { RUN_DEFAULTS } from './run-defaults.ts';
import { addStartOptions, runTrapped, startSweep, type StartedOutcome, type StartOptions } from './start-sweep.ts';
import { printSummary } from './summary-table.ts';

export const DEFAULT_SCENARIOS = ['tiny-agent-sum-of-squares', 'seed-calibrated'];

export interface RunOptions extends TaskqueueFlags, TransportFlags {
  scenario?: string;
  model: string;
  steps: string;
  maxCost: string;
  timeout: string;
  maxRepeat: string;
  maxTokens: string;
  maxCalls: string;
  repeat: string;
  seed: string;
  pricing?: string;
  priceModel?: string;
  priceIn?: string;
  priceOut?: string;
  priceCached?: string;
  promptCache: string;
  maxOutputTokens: string;
  resume?: string;
  /** Optional so callers that build options in code (before these flags existed) keep working. */
  reflection?: string;
  maxReflections?: string;
  context?: string;
}

function resolvePrice(o: RunOptions, models: string[], table: PricingTable): Price {
  const custom = [o.priceIn, o.priceOut].filter((x) => x !== undefined).length;
  if (custom === 1) throw new UsageError('--price-in and --price-out go together (USD per 1M tokens)');
  if (custom === 2) {
    const input = one(o.priceIn!, '--price-in', { min: 0 });
    return {
      model: 'custom',
      input_per_1m: input,
      output_per_1m: one(o.priceOut!, '--price-out', { min: 0 }),
      cached_input_per_1m: o.priceCached === undefined ? input : one(o.priceCached, '--price-cached', { min: 0 }),
    };
  }
  const openai = models.filter((m) => m.startsWith('openai:')).map((m) => m.slice('openai:'.length));
  const priced = o.priceModel ?? (openai.length === 1 && models.length === 1 && table.models[openai[0]!] ? openai[0]! : DEFAULT_PRICED_MODEL);
  return priceFor(table, priced, o.pricing ?? DEFAULT_PRICING_FILE);
}

function buildGrid(o: RunOptions, transport: ModelTransport): Grid {
  const limit = (text: string, flag: string, rule: { integer?: boolean; min?: number }) => parseNumberList(text, { flag, off: true, ...rule });
  const models = parseChoiceList(o.model, '--model', (v) => v.length > 0);
  for (const m of models) validateModelSpec(m, transport);
  const grid: Grid = {
    model: models,
    max_steps: limit(o.steps, '--steps', { integer: true, min: 1 }),
    max_cost_usd: limit(o.maxCost, '--max-cost', { min: 0 }),
    timeout_s: limit(o.timeout, '--timeout', { min: 0.001 }),
    max_repeat: limit(o.maxRepeat, '--max-repeat', { integer: true, min: 1 }),
    max_tokens: limit(o.maxTokens, '--max-tokens', { integer: true, min: 1 }),
    max_calls: limit(o.maxCalls, '--max-calls', { integer: true, min: 1 }),
    max_rounds: limit(o.maxRounds ?? TASKQUEUE_FLAG_DEFAULTS.maxRounds, '--max-rounds', { integer: true, min: 1 }),
    reflection: parseChoiceList(o.reflection ?? 'off', '--reflection', REFLECTIONS),
    context: parseContextList(o.context ?? 'full'),
    agent: {},
  };
  // A run needs at least one brake that bounds its length; refuse a grid point that has none.
  const unbounded = grid.max_steps.includes(null) && grid.max_cost_usd.includes(null) && grid.timeout_s.includes(null) && grid.max_tokens.includes(null) && grid.max_calls.includes(null) && grid.max_rounds.includes(null);
  if (unbounded) throw new UsageError('every length brake is off in some configuration: keep at least one of --steps, --max-cost, --timeout, --max-tokens, --max-calls, --max-rounds on');
  return grid;
}

/** Validates everything the flags say, before anything is written. `given` replaces `--scenario` (bench check). */
export function buildSweepSpec(o: RunOptions, transport: ModelTransport = DEFAULT_TRANSPORT, given?: Scenario[]): SweepSpec {
  const scenarios: Scenario[] = given ?? resolveScenarios((o.scenario ?? DEFAULT_SCENARIOS.join(',')).split(',').map((s) => s.trim()).filter(Boolean));
  if (scenarios.length === 0) throw new UsageError('--scenario: no scenario given');
  const grid = buildGrid(o, transport);
  for (const s of scenarios) for (const m of grid.model) if (m.startsWith('sim') && !transport.replay) checkProfile(s, m, '--model');
  const table = loadPricing(o.pricing ?? DEFAULT_PRICING_FILE);
  const price = resolvePrice(o, grid.model, table);
  grid.agent = taskqueueGrid(o, scenarios, price, table);
  const roleModels = parseRoleModels(o.roleModel, transport);
  for (const s of scenarios) for (const m of Object.values(roleModels ?? {})) if (m.startsWith('sim')) checkProfile(s, m, '--role-model');
  const promptCache = parseChoiceList(o.promptCache, '--prompt-cache', ['on', 'off'] as const);
  if (promptCache.length !== 1) throw new UsageError('--prompt-cache: takes one value, on or off');
  return {
    scenarios,
    grid,
    fixed: {
      price,
      ...(roleModels ? { role_models: roleModels } : {}),
      model_prices: modelPrices(roleModelSpecs(scenarios, roleModels, transport), table, o.pricing ?? DEFAULT_PRICING_FILE),
      prompt_cache: promptCache[0] === 'on',
      max_output_tokens: one(o.maxOutputTokens, '--max-output-tokens', { integer: true, min: 1, max: 1_000_000 }),
      max_reflections: one(o.maxReflections ?? '2', '--max-reflections', { integer: true, min: 1, max: 100 }),
    },
    repeat: one(o.repeat, '--repeat', { integer: true, min: 1, max: 100_000 }),
    seed: one(o.seed, '--seed', { integer: true, min: 0 }),
  };
}

/** A profile that cannot play the scenario's agent, or calls tools it does not declare, would only produce errors or refusals: say so up front. */
function checkProfile(s: Scenario, model: string, flag: string): void {
  const profile = simProfileFor(model, s);
  if (s.agent === 'taskqueue' && !profile.taskqueue)
    throw new UsageError(`${flag} ${model}: profile '${profile.id}' has no taskqueue section, so it cannot play taskqueue scenario '${s.id}'`);
  if (s.agent === 'taskqueue') return;
  if (!profile.behaviour) throw new UsageError(`${flag} ${model}: profile '${profile.id}' has no ReAct behaviour, so it cannot play scenario '${s.id}'`);
  const declared = new Set(s.tools.map((t) => t.name));
  const missing = [...profile.actions, ...profile.improvements].map((a) => a.tool).filter((t) => !declared.has(t));
  if (missing.length > 0)
    throw new UsageError(`${flag} ${model}: profile '${profile.id}' calls tool(s) ${[...new Set(missing)].join(', ')} that scenario '${s.id}' does not declare`);
}

export function addRunOptions(cmd: Command): Command {
  return addTaskqueueOptions(addTransportOptions(cmd))
    .option('-s, --scenario <ids>', `scenario ids or .yaml paths, comma-separated (default: ${DEFAULT_SCENARIOS.join(',')})`)
    .option('-m, --model <specs>', `model(s) to sweep: ${MODEL_SPECS_HELP}`, RUN_DEFAULTS.model)
    .option('--steps <list>', 'MAX_STEPS values to sweep: 12,30 or 5..30:5 or off', RUN_DEFAULTS.steps)
    .option('--max-cost <list>', 'budget per run in USD (never exceeded: the next call is projected), list or off', RUN_DEFAULTS.maxCost)
    .option('--timeout <list>', 'wall-clock limit per run in seconds (virtual clock for simulated models), list or off', RUN_DEFAULTS.timeout)
    .option('--max-repeat <list>', 'spin detection: how often one action (tool + arguments) may run, list or off', RUN_DEFAULTS.maxRepeat)
    .option('--max-tokens <list>', 'total tokens (input + output) per run, list or off', RUN_DEFAULTS.maxTokens)
    .option('--max-calls <list>', 'model calls per run, list or off', RUN_DEFAULTS.maxCalls)
    .option('-n, --repeat <n>', 'runs per configuration, each with its own seed', RUN_DEFAULTS.repeat)
    .option('--seed <n>', 'sweep seed: the same seed gives the same runs', RUN_DEFAULTS.seed)
    .option('--json', 'print the summary as JSON on stdout')
    .option('--pricing <file>', 'pricing table (YAML, like data/pricing.yaml)')
    .option('--price-model <name>', `price the tokens as this model from the pricing table (default: ${DEFAULT_PRICED_MODEL}, or the openai: model swept)`)
    .option('--price-in <usd>', 'custom input price, USD per 1M tokens (with --price-out)')
    .option('--price-out <usd>', 'custom output price, USD per 1M tokens (with --price-in)')
    .option('--price-cached <usd>', 'custom cached-input price, USD per 1M tokens (default: the input price)')
    .addOption(new Option('--prompt-cache <on|off>', 'bill repeated prompt prefixes at the cached rate, as providers do').default(RUN_DEFAULTS.promptCache))
    .option('--max-output-tokens <n>', 'max_tokens per call; the budget brake projects this worst case', RUN_DEFAULTS.maxOutputTokens)
    .option('--resume <dir>', 'finish an interrupted sweep: results/<dir>, or a path, with the settings of its meta.json (only -q, --json and the transport flags may go with it)')
    .option('--reflection <list>', `outer reflection to sweep: ${REFLECTIONS.join(', ')} (final: one critique per answer, REVISE reopens the loop; every-step: also a critique after each action)`, 'off')
    .option('--max-reflections <n>', 'how often a critique may reopen an answer per run', '2')
    .option('--context <list>', `context strategies to sweep: ${CONTEXT_HELP}`, 'full');
}

/** Flags --resume accepts: the sweep itself comes from meta.json; how models are reached does not. */
const RESUME_COMPATIBLE = new Set(['resume', 'quiet', 'json', 'baseUrl', 'requestTimeout', 'maxRetries', 'record', 'replay']);

export function registerRun(program: Command): void {
  addStartOptions(addRunOptions(program.command('run', { isDefault: true }).description('run a sweep (the default command): scenarios × settings × repeats')))
    .action(async (o: RunOptions & StartOptions, cmd: Command) => {
      if (o.resume !== undefined) return resume(o, cmd);
      const transport = transportFrom(o);
      // A replayed sweep runs the models it recorded unless --model says otherwise.
      if (transport.replay && cmd.getOptionValueSource('model') === 'default') o.model = transport.replay.models().join(',') || o.model;
      const spec = buildSweepSpec(o, transport);
      const control = { pauseAt: parsePauseAt(o.pauseAt), resume: loadResumeState(o.resumeState, spec.scenarios) };
      const trace = o.trace ? (line: string) => process.stderr.write(`${line}\n`) : undefined;
      const outcome = await startSweep(spec, o, process.argv.slice(2), transport, { trace, control });
      report(o, outcome, control.pauseAt);
    });
}

async function resume(o: RunOptions & StartOptions, cmd: Command): Promise<void> {
  const extra = cmd.options.map((opt) => opt.attributeName()).filter((k) => !RESUME_COMPATIBLE.has(k) && cmd.getOptionValueSource(k) === 'cli');
  if (extra.length > 0) {
    const flags = cmd.options.filter((opt) => extra.includes(opt.attributeName())).map((opt) => opt.long);
    throw new UsageError(`--resume takes the sweep's settings from its meta.json; drop ${flags.join(', ')} (accepted with --resume: -q, --json and the transport flags --base-url, --request-timeout, --max-retries, --record, --replay)`);
  }
  const transport = transportFrom(o);
  const dir = resultsDirFor(o.resume);
  const plan = await planResume(dir, transport);
  const options = plan.meta.options ?? { concurrency: 4, transcripts: true };
  if (plan.todo.length === 0) console.error(`bench: ${dir}: all ${plan.done} runs are finished; rebuilding the reports only`);
  else console.error(`bench: resuming ${dir}: ${plan.done} runs finished, ${plan.todo.length} to run`);
  const sweep = { dir, spec: plan.spec, plans: plan.todo, concurrency: options.concurrency, transcripts: options.transcripts, command: plan.meta.command, resume: { meta: plan.meta, done: plan.done }, transport };
  report(o, await runTrapped(sweep, Boolean(o.quiet || o.json)), undefined);
}

/** Prints the summary, and says how to go on from a paused or interrupted sweep. */
function report(o: RunOptions & StartOptions, outcome: StartedOutcome, pauseAt: number | undefined): void {
  printSummary(outcome.summary, { json: o.json, dir: outcome.dir, findings: outcome.findings });
  const paused = outcome.runs.filter((r) => r.extra?.paused).length;
  if (paused > 0)
    console.error(`paused ${paused} run(s) after round ${pauseAt}; state in ${path.join(outcome.dir, FILES.state)}/<run_id>.json — continue with --resume-state FILE`);
  if (outcome.interruptExitCode !== null) {
    console.error(`bench: interrupted: ${outcome.runsDone} of ${outcome.runsPlanned} runs finished, the others are recorded as interrupted; finish them with: bench --resume ${outcome.dir}`);
    process.exitCode = outcome.interruptExitCode;
  }
}
