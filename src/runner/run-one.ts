// One run: build its model, clock, brakes and caller; run the agent; turn the outcome into a RunRecord.
import type { AgentOutcome, AgentRun } from '../agents/agent.ts';
import { ModelCaller, type CallLog, type OutputOverrun } from '../agents/caller.ts';
import { withContext } from '../agents/context.ts';
import type { AgentLoop } from '../agents/agent.ts';
import { runReact } from '../agents/react.ts';
import { runTaskqueue } from '../agents/taskqueue.ts';
import { withReflection } from '../agents/reflection.ts';
import { brakesFor } from '../brakes/index.ts';
import type { TokenCounter } from '../meter/tokens.ts';
import type { ChatModel, Role } from '../contracts/chat.ts';
import type { Scenario } from '../scenario/schema.ts';
import { createModel, type ModelTransport } from '../models/factory.ts';
import { checkAnswer } from '../scenario/check.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import type { CallSlots } from './call-slots.ts';
import { VirtualClock, WallClock } from '../contracts/clock.ts';
import type { RunRecord, StepRecord } from '../contracts/records.ts';
import type { RunPlan } from './sweep.ts';
import type { SpendGuard } from '../contracts/sweep-state.ts';
import { overrunDetail } from './overrun.ts';
import { RunLedger } from '../meter/ledger.ts';

export interface RunDeps {
  counter: TokenCounter;
  tools: (plan: RunPlan) => ToolRegistry;
  onStep: (record: StepRecord) => void;
  signal?: AbortSignal;
  trace?: AgentRun['trace'];
  control?: AgentRun['control'];
  /** Whether the run's calls are kept for a transcript (default true). */
  transcript?: boolean;
  /** How non-simulated models are reached (API key, base URL, retries, cassettes). */
  transport?: ModelTransport;
  /** The sweep's shared call slots, when its runs call a provider. */
  slots?: CallSlots;
  /** The sweep's spend cap (`--ci-max-spend`), which an overrun halts. */
  spend?: SpendGuard;
}

export interface RunResult {
  record: RunRecord;
  /** Every call, as sent and received: the run's transcript. */
  calls: CallLog[];
  messages: AgentOutcome['messages'];
}

type LoopFor<K extends Scenario['agent']> = (run: AgentRun<Extract<Scenario, { agent: K }>>) => Promise<AgentOutcome>;
const AGENTS: { [K in Scenario['agent']]: LoopFor<K> } = { react: runReact, taskqueue: runTaskqueue };

/** One model per role that names its own (the task queue's `models:` / --role-model). */
function roleModels(
  settings: RunPlan['settings'],
  scenario: Scenario,
  counter: TokenCounter,
  transport?: ModelTransport,
): Partial<Record<Role, ChatModel>> {
  const out: Partial<Record<Role, ChatModel>> = {};
  for (const [role, spec] of Object.entries(settings.role_models ?? {}) as Array<[Role, string]>)
    out[role] = createModel({ ...settings, model: spec }, scenario, counter, transport);
  return out;
}

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
    roleModels: roleModels(settings, scenario, deps.counter, deps.transport),
    counter: deps.counter,
    brakes: brakesFor(settings.limits),
    clock,
    onStep: deps.onStep,
    slots: deps.slots,
    spend: deps.spend,
    signal: deps.signal,
    keepLog: deps.transcript,
  });
  // The context strategy is the outer layer, so critique calls see the same view as the agent.
  const agent = withContext(withReflection(AGENTS[scenario.agent] as AgentLoop));
  const trace = deps.trace && ((line: string) => deps.trace!(line.replace(/^/gm, `[${plan.runId}] `)));
  const outcome = await agent({
    scenario,
    caller,
    tools: deps.tools(plan),
    clock,
    signal: deps.signal,
    trace,
    control: deps.control,
  });
  const overrun = caller.overrun;
  const found = {
    ...(overrun ? { output_overrun: overrun } : {}),
    ...(caller.replayMiss ? { replay_miss: caller.replayMiss } : {}),
  };
  const extra = Object.keys(found).length ? { ...outcome.extra, ...found } : outcome.extra;
  const record = recordOf(plan, { ...outcome, extra }, caller.ledger, clock.elapsedMs(), startedAt);
  return { record, calls: caller.log, messages: outcome.messages };
}

/**
 * The record of a run Ctrl-C stopped before it started, made without building its model or agent:
 * after a signal a large sweep records thousands of these, and must do so within a second.
 */
export function notStartedRecord(plan: RunPlan): RunRecord {
  const now = new Date().toISOString();
  const outcome: AgentOutcome = {
    stop: { reason: 'interrupted', detail: 'interrupted before the next model call', step: 0 },
    answer: null,
    messages: [],
  };
  return recordOf(plan, outcome, new RunLedger(plan.runId, plan.configId, plan.settings), 0, now);
}

function recordOf(
  plan: RunPlan,
  outcome: AgentOutcome,
  ledger: RunLedger,
  elapsedMs: number,
  startedAt: string,
): RunRecord {
  const { settings, scenario } = plan;
  const overrun = outcome.extra?.output_overrun as OutputOverrun | undefined;
  const { stop } = outcome;
  return ledger.runRecord({
    agent: scenario.agent,
    stop: overrun
      ? {
          ...stop,
          detail: `${stop.detail} — ${overrunDetail(overrun, ledger.totals.costUsd, settings.limits.max_cost_usd)}`,
        }
      : stop,
    elapsedMs,
    answer: outcome.answer,
    success:
      scenario.agent !== 'react'
        ? null
        : stop.reason === 'done'
          ? checkAnswer(scenario.check, outcome.answer)
          : scenario.check
            ? false
            : null,
    started_at: startedAt,
    finished_at: new Date().toISOString(),
    ...(outcome.extra ? { extra: outcome.extra } : {}),
  });
}
