// Runs one task-queue scenario in process with chosen limits and knobs, collecting its step records.
import type { AgentRun } from '../src/agents/agent.ts';
import { TASKQUEUE_DEFAULTS, type TaskqueueOptions } from '../src/agents/queue/options.ts';
import { loadPricing, priceFor } from '../src/meter/pricing.ts';
import { TokenCounter } from '../src/meter/tokens.ts';
import type { StepRecord } from '../src/contracts/records.ts';
import { executeRun, type RunResult } from '../src/runner/run-one.ts';
import { SEED_LIMITS, type Limits, type Settings } from '../src/contracts/settings.ts';
import { resolveScenario } from '../src/scenario/loader.ts';
import { ToolRegistry } from '../src/tools/registry.ts';

export interface TqRunOptions {
  limits?: Partial<Limits>;
  agent?: Partial<TaskqueueOptions>;
  model?: string;
  role_models?: Settings['role_models'];
  role_prices?: Settings['role_prices'];
  seed?: number;
  /** max_tokens per call (default 1024); babyagi-long-result's 6,000-token page needs more, or it is cut. */
  max_output_tokens?: number;
  control?: AgentRun['control'];
  /** Default gpt-4o-mini's, without prompt caching; a Claude price with caching makes the sim bill cache writes. */
  price?: Settings['price'];
  prompt_cache?: boolean;
  trace?: (line: string) => void;
}

export async function runTq(scenarioId: string, o: TqRunOptions = {}): Promise<RunResult & { steps: StepRecord[] }> {
  const scenario = resolveScenario(scenarioId);
  const settings: Settings = {
    scenario: scenario.id,
    model: o.model ?? 'sim',
    limits: { ...SEED_LIMITS, timeout_s: null, max_cost_usd: null, max_steps: null, max_rounds: 10, ...o.limits },
    reflection: 'off',
    max_reflections: 2,
    context: 'full',
    price: o.price ?? priceFor(loadPricing(), 'gpt-4o-mini'),
    prompt_cache: o.prompt_cache ?? false,
    max_output_tokens: o.max_output_tokens ?? 1024,
    seed: o.seed ?? 7,
    repeat: 0,
    agent: { ...TASKQUEUE_DEFAULTS, ...o.agent },
    ...(o.role_models ? { role_models: o.role_models } : {}),
    ...(o.role_prices ? { role_prices: o.role_prices } : {}),
  };
  const steps: StepRecord[] = [];
  const result = await executeRun(
    { runId: 'test', configId: 'test', scenario, settings },
    {
      counter: new TokenCounter(),
      tools: () => ToolRegistry.fromDecls([]),
      onStep: (r) => steps.push(r),
      control: o.control,
      trace: o.trace,
    },
  );
  return { ...result, steps };
}
