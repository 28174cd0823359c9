// The sweep plan: from typed run options (flags as text, or a budgets file turned into the same
// options) to a validated SweepSpec. Below the CLI, so the gate, `bench serve` and `bench perf` plan
// sweeps without importing the command line.
import { DEFAULT_PRICED_MODEL, loadPricing, priceFor, DEFAULT_PRICING_FILE, type PricingTable } from '../meter/pricing.ts';
import { validateModelSpec, simProfileFor, DEFAULT_TRANSPORT, type ModelTransport } from '../models/factory.ts';
import { parseContextList } from '../agents/context-spec.ts';
import { REFLECTIONS, type Price, type Grid } from '../contracts/settings.ts';
import type { SweepSpec } from './sweep.ts';
import { parseChoiceList, parseNumberList, parseOne as one } from './values.ts';
import { resolveScenarios } from '../scenario/loader.ts';
import type { Scenario } from '../scenario/schema.ts';
import { UsageError } from '../contracts/errors.ts';
import { TASKQUEUE_FLAG_DEFAULTS, modelPrices, parseRoleModels, roleModelSpecs, taskqueueGrid, type TaskqueueFlags } from './taskqueue-plan.ts';
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
}

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
  /** `--agent-cmd`: run this command as the agent of every run, through the metering gateway. */
  agentCmd?: string;
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
  const agentCmd = o.agentCmd === undefined ? undefined : checkAgentCmd(o.agentCmd, scenarios, grid, transport);
  for (const s of scenarios) for (const m of grid.model) if (m.startsWith('sim') && !transport.replay) checkProfile(s, m, '--model', agentCmd !== undefined);
  const table = loadPricing(o.pricing ?? DEFAULT_PRICING_FILE);
  const price = resolvePrice(o, grid.model, table);
  grid.agent = { ...taskqueueGrid(o, scenarios, price, table), ...(agentCmd !== undefined ? { agent_cmd: [agentCmd] } : {}) };
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
function checkProfile(s: Scenario, model: string, flag: string, external = false): void {
  const profile = simProfileFor(model, s);
  if (s.agent === 'taskqueue' && !profile.taskqueue)
    throw new UsageError(`${flag} ${model}: profile '${profile.id}' has no taskqueue section, so it cannot play taskqueue scenario '${s.id}'`);
  if (s.agent === 'taskqueue') return;
  if (!profile.behaviour) throw new UsageError(`${flag} ${model}: profile '${profile.id}' has no ReAct behaviour, so it cannot play scenario '${s.id}'`);
  // An external agent offers its own tools; the sim maps its actions onto them.
  if (external) return;
  const declared = new Set(s.tools.map((t) => t.name));
  const missing = [...profile.actions, ...profile.improvements].map((a) => a.tool).filter((t) => !declared.has(t));
  if (missing.length > 0)
    throw new UsageError(`${flag} ${model}: profile '${profile.id}' calls tool(s) ${[...new Set(missing)].join(', ')} that scenario '${s.id}' does not declare`);
}

/** An external agent plays a scenario's prompt and goal with its own loop and tools, against a sim or a provider. */
function checkAgentCmd(text: string, scenarios: Scenario[], grid: Grid, transport: ModelTransport): string {
  const cmd = text.trim();
  if (!cmd) throw new UsageError('--agent-cmd: empty (give the command that starts your agent, e.g. "python3 my_agent.py")');
  const queue = scenarios.find((s) => s.agent !== 'react');
  if (queue) throw new UsageError(`--agent-cmd: scenario '${queue.id}' is a task-queue scenario; an external agent plays scenarios with a system prompt and a goal (agent: react)`);
  if (grid.reflection.some((r) => r !== 'off') || grid.context.some((c) => c !== 'full'))
    throw new UsageError("--agent-cmd: --reflection and --context shape loopbench's own loops; an external agent runs its own, so they cannot apply (leave them off/full)");
  const other = grid.model.find((m) => !m.startsWith('sim') && !m.startsWith('openai:'));
  if (other) throw new UsageError(`--agent-cmd: --model ${other}: an external agent talks to a simulated model (sim, sim:<profile>) or a provider (openai:<model>)`);
  return cmd;
}
