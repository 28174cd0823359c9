// One run: build its model, clock, brakes and caller; run the agent; turn the outcome into a RunRecord.
import type { AgentOutcome } from '../agents/agent.ts';
import { ModelCaller, type CallLog } from '../agents/caller.ts';
import { withContext } from '../agents/context.ts';
import type { AgentLoop } from '../agents/hooks.ts';
import { runReact } from '../agents/react.ts';
import { withReflection } from '../agents/reflection.ts';
import { brakesFor } from '../brakes/index.ts';
import type { TokenCounter } from '../meter/tokens.ts';
import { createModel, type ModelTransport } from '../models/factory.ts';
import { checkAnswer } from '../scenario/check.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import { VirtualClock, WallClock } from './clock.ts';
import type { RunRecord, StepRecord } from './records.ts';
import type { RunPlan } from './sweep.ts';

export interface RunDeps {
  counter: TokenCounter;
  tools: (plan: RunPlan) => ToolRegistry;
  onStep: (record: StepRecord) => void;
  signal?: AbortSignal;
  /** Whether the run's calls are kept for a transcript (default true). */
  transcript?: boolean;
  /** How non-simulated models are reached (API key, base URL, retries, cassettes). */
  transport?: ModelTransport;
}

export interface RunResult {
  record: RunRecord;
  /** Every call, as sent and received: the run's transcript. */
  calls: CallLog[];
  messages: AgentOutcome['messages'];
}

const AGENTS: Record<string, AgentLoop> = { react: runReact };

export async function executeRun(plan: RunPlan, deps: RunDeps): Promise<RunResult> {
  const { settings, scenario } = plan;
  const startedAt = new Date().toISOString();
  const model = createModel(settings, scenario, deps.counter, deps.transport);
  const clock = model.simulated ? new VirtualClock() : new WallClock();
  const caller = new ModelCaller({
    runId: plan.runId,
    configId: plan.configId,
    settings,
    model,
    counter: deps.counter,
    brakes: brakesFor(settings.limits),
    clock,
    onStep: deps.onStep,
    signal: deps.signal,
    keepLog: deps.transcript,
  });
  // The context strategy is the outer layer, so critique calls see the same view as the agent.
  const agent = withContext(withReflection(AGENTS[scenario.agent]!));
  const outcome = await agent({ scenario, caller, tools: deps.tools(plan), clock, signal: deps.signal });
  const s = caller.state;
  const record: RunRecord = {
    run_id: plan.runId,
    config_id: plan.configId,
    scenario: scenario.id,
    agent: scenario.agent,
    settings,
    stop_reason: outcome.stop.reason,
    stop_detail: outcome.stop.detail,
    stop_step: outcome.stop.step,
    steps: s.steps,
    calls: s.calls,
    rounds: s.rounds,
    input_tokens: s.inputTokens,
    output_tokens: s.outputTokens,
    cached_tokens: s.cachedTokens,
    cost_usd: s.costUsd,
    elapsed_ms: Math.round(clock.elapsedMs()),
    answer: outcome.answer,
    success: outcome.stop.reason === 'done' ? checkAnswer(scenario.check, outcome.answer) : scenario.check ? false : null,
    started_at: startedAt,
    finished_at: new Date().toISOString(),
    ...(outcome.extra ? { extra: outcome.extra } : {}),
  };
  return { record, calls: caller.log, messages: outcome.messages };
}
