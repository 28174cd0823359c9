// The sweep plan: from typed run options (flags as text, or a budgets file turned into the same
// options) to a validated SweepSpec. Below the CLI, so the gate, `bench serve` and `bench perf` plan
// sweeps without importing the command line.
import {
  DEFAULT_PRICED_MODEL,
  loadPricing,
  noPriceError,
  DEFAULT_PRICING_FILE,
  type PricingTable,
} from '../meter/pricing.ts';
import { pricedName, requirePrice } from '../meter/model-price.ts';
import {
  isSimulated,
  pricedModelOf,
  unpricedModel,
  requireOwnLoopModel,
  validateModelSpec,
  simProfileFor,
  DEFAULT_TRANSPORT,
  type ModelTransport,
} from '../models/factory.ts';
import { appliesTo, parseContextList } from '../agents/context-spec.ts';
import { REFLECTIONS, type Price, type Grid } from '../contracts/settings.ts';
import { LIMITS, type LimitDef, optionName, type LimitGrid, type LimitOptions } from '../contracts/limits.ts';
import type { SweepSpec } from './sweep.ts';
import { parseChoiceList, parseNumberList, parseOne as one } from './values.ts';
import { resolveScenarios } from '../scenario/loader.ts';
import type { Scenario } from '../scenario/schema.ts';
import { UsageError } from '../contracts/errors.ts';
import { modelPrices, parseRoleModels, roleModelSpecs, taskqueueGrid, type TaskqueueFlags } from './taskqueue-plan.ts';
import type { TransportFlags } from './transport.ts';

/** How a planned sweep is started: where it writes, how many at once, which slice, the spend cap. */
export interface StartOptions {
  out?: string;
  force?: boolean;
  concurrency: string;
  quiet?: boolean;
  json?: boolean;
  transcripts: boolean;
  shard?: string;
  ciMaxSpend?: string;
  /** Worker threads for simulated and replayed runs (default: available parallelism). */
  workers?: string;
}

export const DEFAULT_SCENARIOS = ['tiny-agent-sum-of-squares', 'seed-calibrated'];

export interface RunOptions extends TaskqueueFlags, TransportFlags, LimitOptions {
  scenario?: string;
  model: string;
  /** A count, or `auto[:MIN..MAX:BATCH]` on `bench run` (repeat-auto.ts), which passes max on to buildSweepSpec. */
  repeat: string;
  /** With `--repeat auto`: the precision wanted (repeat-auto.ts). */
  precision?: string;
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
  /** `--agent-cmd`: run this command as the agent of every run, through the metering gateway. */
  agentCmd?: string;
}

/** The pricing flags `bench run` and `bench report` share. */
export type PriceFlags = Pick<RunOptions, 'pricing' | 'priceModel' | 'priceIn' | 'priceOut' | 'priceCached'>;

/** The price from the pricing flags: custom rates, a table entry, or the one openai: model swept. */
export function resolvePrice(o: PriceFlags, models: string[], table: PricingTable): Price {
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
  // A real model the table has no price for is an error now, not a run billed at another model's
  // rates; a simulated profile's name (an openai: run against bench serve) is billed as the sim is.
  if (o.priceModel === undefined) {
    const unpriced = models.map(pricedModelOf).find((m) => m !== undefined && unpricedModel(table, m));
    if (unpriced) throw noPriceError(unpriced, o.pricing ?? DEFAULT_PRICING_FILE);
  }
  // One swept model that names a priced model (openai:gpt-4o) is billed as that model unless --price-model says otherwise.
  const named = models.length === 1 ? pricedModelOf(models[0]!) : undefined;
  const priced = o.priceModel ?? (named && pricedName(table, named) ? named : DEFAULT_PRICED_MODEL);
  return requirePrice(table, priced, o.pricing ?? DEFAULT_PRICING_FILE);
}

/** Every limit flag parsed by its row of the table of brakes; a detector left off is left out. */
export function parseLimits(o: LimitOptions): LimitGrid {
  const grid: Record<string, Array<number | null>> = {};
  for (const d of LIMITS) {
    const values = parseNumberList(o[optionName(d) as keyof LimitOptions] ?? d.default, {
      flag: d.flag,
      off: true,
      ...d.rule,
    });
    if (!('detector' in d) || values.some((v) => v !== null)) grid[d.key] = values;
  }
  return grid as LimitGrid;
}

/** The limits a sweep sweeps: parsed, and every configuration bounded in length by some brake. */
export function limitGrid(o: LimitOptions): LimitGrid {
  const grid = parseLimits(o);
  requireLengthBrake(grid, (d) => d.flag);
  return grid;
}

/** A run needs at least one brake that bounds its length; refuse a grid point that has none, naming the limits as the input does (`--steps`, `limits.steps`). */
export function requireLengthBrake(grid: LimitGrid, nameOf: (d: LimitDef) => string): void {
  const bounding = LIMITS.filter((d) => d.bounds);
  const values = grid as Record<string, Array<number | null> | undefined>;
  if (bounding.every((d) => values[d.key]!.includes(null)))
    throw new UsageError(
      `every length brake is off in some configuration: keep at least one of ${bounding.map(nameOf).join(', ')} on`,
    );
}

function buildGrid(o: RunOptions, transport: ModelTransport): Grid {
  const models = parseChoiceList(o.model, '--model', (v) => v.length > 0);
  for (const m of models) validateModelSpec(m, transport);
  return {
    model: models,
    ...limitGrid(o),
    reflection: parseChoiceList(o.reflection ?? 'off', '--reflection', REFLECTIONS),
    context: parseContextList(o.context ?? 'full'),
    agent: {},
  };
}

/** Validates everything the flags say, before anything is written. `given` replaces `--scenario` (bench check). */
export function buildSweepSpec(
  o: RunOptions,
  transport: ModelTransport = DEFAULT_TRANSPORT,
  given?: Scenario[],
): SweepSpec {
  const scenarios: Scenario[] =
    given ??
    resolveScenarios(
      (o.scenario ?? DEFAULT_SCENARIOS.join(','))
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );
  if (scenarios.length === 0) throw new UsageError('--scenario: no scenario given');
  const grid = buildGrid(o, transport);
  requireReactFor(grid, scenarios);
  const agentCmd = o.agentCmd === undefined ? undefined : checkAgentCmd(o.agentCmd, scenarios, grid, transport);
  if (agentCmd === undefined) for (const m of grid.model) requireOwnLoopModel(m);
  for (const s of scenarios)
    for (const m of grid.model)
      if (isSimulated(m) && !transport.replay) checkProfile(s, m, '--model', agentCmd !== undefined);
  const table = loadPricing(o.pricing ?? DEFAULT_PRICING_FILE);
  const price = resolvePrice(o, grid.model, table);
  grid.agent = {
    ...taskqueueGrid(o, scenarios, price, table),
    ...(agentCmd !== undefined ? { agent_cmd: [agentCmd] } : {}),
  };
  const roleModels = parseRoleModels(o.roleModel, transport);
  for (const m of Object.values(roleModels ?? {})) requireOwnLoopModel(m);
  for (const s of scenarios)
    for (const m of Object.values(roleModels ?? {})) if (isSimulated(m)) checkProfile(s, m, '--role-model');
  const promptCache = parseChoiceList(o.promptCache, '--prompt-cache', ['on', 'off'] as const);
  if (promptCache.length !== 1) throw new UsageError('--prompt-cache: takes one value, on or off');
  return {
    scenarios,
    grid,
    fixed: {
      price,
      ...(roleModels ? { role_models: roleModels } : {}),
      model_prices: modelPrices(
        roleModelSpecs(scenarios, roleModels, transport),
        table,
        o.pricing ?? DEFAULT_PRICING_FILE,
      ),
      prompt_cache: promptCache[0] === 'on',
      max_output_tokens: one(o.maxOutputTokens, '--max-output-tokens', { integer: true, min: 1, max: 1_000_000 }),
      max_reflections: one(o.maxReflections ?? '2', '--max-reflections', { integer: true, min: 1, max: 100 }),
    },
    repeat: one(o.repeat, '--repeat', { integer: true, min: 1, max: 100_000 }),
    seed: one(o.seed, '--seed', { integer: true, min: 0 }),
  };
}

/**
 * The task-queue loop has no context strategy and no reflection: a taskqueue run labelled with them
 * would record what did not happen (and pay twice for identical runs under two labels).
 */
function requireReactFor(grid: Grid, scenarios: Scenario[]): void {
  const queues = scenarios.filter((s) => s.agent === 'taskqueue').map((s) => s.id);
  if (queues.length === 0) return;
  const given = [
    ...(grid.reflection.some((r) => r !== 'off') ? ['--reflection'] : []),
    ...(grid.context.some((c) => !appliesTo(c, 'taskqueue')) ? ['--context'] : []),
  ];
  if (given.length)
    throw new UsageError(
      `${given.join(', ')}: only for ReAct scenarios, and taskqueue scenario ${queues.join(', ')} is in this sweep (its loop has no context strategy or reflection; sweep it separately)`,
    );
}

/** A profile that cannot play the scenario's agent, or calls tools it does not declare, would only produce errors or refusals: say so up front. */
function checkProfile(s: Scenario, model: string, flag: string, external = false): void {
  const profile = simProfileFor(model, s);
  if (s.agent === 'taskqueue' && !profile.taskqueue)
    throw new UsageError(
      `${flag} ${model}: profile '${profile.id}' has no taskqueue section, so it cannot play taskqueue scenario '${s.id}'`,
    );
  if (s.agent === 'taskqueue') return;
  if (!profile.behaviour)
    throw new UsageError(
      `${flag} ${model}: profile '${profile.id}' has no ReAct behaviour, so it cannot play scenario '${s.id}'`,
    );
  // An external agent offers its own tools; the sim maps its actions onto them.
  if (external) return;
  const declared = new Set(s.tools.map((t) => t.name));
  const missing = [...profile.actions, ...profile.improvements].map((a) => a.tool).filter((t) => !declared.has(t));
  if (missing.length > 0)
    throw new UsageError(
      `${flag} ${model}: profile '${profile.id}' calls tool(s) ${[...new Set(missing)].join(', ')} that scenario '${s.id}' does not declare`,
    );
}

/** An external agent plays a scenario's prompt and goal with its own loop and tools, against a sim or a provider. */
function checkAgentCmd(text: string, scenarios: Scenario[], grid: Grid, transport: ModelTransport): string {
  const cmd = text.trim();
  if (!cmd)
    throw new UsageError('--agent-cmd: empty (give the command that starts your agent, e.g. "python3 my_agent.py")');
  const queue = scenarios.find((s) => s.agent !== 'react');
  if (queue)
    throw new UsageError(
      `--agent-cmd: scenario '${queue.id}' is a task-queue scenario; an external agent plays scenarios with a system prompt and a goal (agent: react)`,
    );
  if (grid.reflection.some((r) => r !== 'off') || grid.context.some((c) => c !== 'full'))
    throw new UsageError(
      "--agent-cmd: --reflection and --context shape loopbench's own loops; an external agent runs its own, so they cannot apply (leave them off/full)",
    );
  const other = grid.model.find((m) => !m.startsWith('sim') && !m.startsWith('openai:') && !m.startsWith('anthropic:'));
  if (other)
    throw new UsageError(
      `--agent-cmd: --model ${other}: an external agent talks to a simulated model (sim, sim:<profile>) or a provider (openai:<model>, anthropic:<model>)`,
    );
  return cmd;
}
