// The task-driven agent (BabyAGI's three roles). One round: execute the first task (only it) →
// create new tasks from the goal, the last result and the queue → reprioritise the queue. Shared
// state is the queue and the result store. It ends when the queue is empty or a brake fires
// (rounds, calls, cost, tokens, time), or pauses after a chosen round for a person to look.
import type { Stop } from '../contracts/stop-reason.ts';
import type { ChatMessage, Role } from '../contracts/chat.ts';
import { truncateTokens } from '../meter/truncate.ts';
import type { TaskqueueScenario } from '../scenario/schema.ts';
import type { AgentOutcome, AgentRun } from './agent.ts';
import { admitTasks, capQueue, parsePriority, type QueueEvent } from './queue/constraints.ts';
import { parseCreated } from '../contracts/taskqueue-format.ts';
import { taskqueueOptions } from './queue/options.ts';
import { createRequest, executeRequest, prioritizeRequest, summarizeRequest } from './queue/prompts.ts';
import type { QueueState } from './queue/state.ts';
import { describeEvent, traceRound } from './queue/trace.ts';

/** One round as the records keep it, so a run can be replayed round by round. */
export interface RoundLog {
  round: number;
  task: string;
  /** Tokens of the execution result as the model wrote it (before any cap). */
  result_tokens: number;
  created: number;
  accepted: number;
  /** Queue length at the end of the round. */
  queue_length: number;
  queue: string[];
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
}

export interface RoleTotals {
  calls: number;
  input_tokens: number;
  output_tokens: number;
}

function freshState(s: TaskqueueScenario): QueueState {
  const totals = { steps: 0, calls: 0, input_tokens: 0, output_tokens: 0, cached_tokens: 0, cost_usd: 0 };
  return { format: 'loopbench-taskqueue-state/1', scenario: s.id, round: 0, queue: [...s.initial_tasks], results: [], summary: null, summarized: 0, totals };
}

export async function runTaskqueue(run: AgentRun<TaskqueueScenario>): Promise<AgentOutcome> {
  const { scenario, caller } = run;
  const o = taskqueueOptions(caller.settings);
  const cs = caller.state;
  const st: QueueState = run.control?.resume ? structuredClone(run.control.resume) : freshState(scenario);
  // Budgets hold across a pause: the resumed run starts from what the paused one had spent.
  Object.assign(cs, {
    rounds: st.round,
    steps: st.totals.steps,
    calls: st.totals.calls,
    inputTokens: st.totals.input_tokens,
    outputTokens: st.totals.output_tokens,
    cachedTokens: st.totals.cached_tokens,
    costUsd: st.totals.cost_usd,
  });
  const startRound = st.round;
  const pauseAt = run.control?.pauseAt;
  const events: QueueEvent[] = [];
  const rounds: RoundLog[] = [];
  // Tokens per role, counted here: the caller's call log is only kept when transcripts are.
  const byRole: Partial<Record<Role, RoleTotals>> = {};
  const call = async (role: Role, messages: ChatMessage[]) => {
    const out = await caller.call(role, messages);
    if (out.ok || out.stop.reason === 'error') {
      const t = (byRole[role] ??= { calls: 0, input_tokens: 0, output_tokens: 0 });
      t.calls++;
      t.input_tokens += out.ok ? out.result.usage.prompt_tokens : 0;
      t.output_tokens += out.ok ? out.result.usage.completion_tokens : 0;
    }
    return out;
  };
  const log = (e: QueueEvent) => {
    events.push(e);
    run.trace?.(`  ${describeEvent(e)}`);
  };

  const finish = (stop: Stop, paused = false): AgentOutcome => {
    st.totals = {
      steps: cs.steps,
      calls: cs.calls,
      input_tokens: cs.inputTokens,
      output_tokens: cs.outputTokens,
      cached_tokens: cs.cachedTokens,
      cost_usd: cs.costUsd,
    };
    const initial = startRound === 0 ? scenario.initial_tasks.length : (run.control?.resume?.queue.length ?? 0);
    return {
      stop,
      answer: null,
      messages: [],
      extra: {
        initial_queue_length: initial,
        final_queue_length: st.queue.length,
        rounds,
        events,
        tokens_by_role: byRole,
        dropped: { anchor: count(events, 'anchor'), dedup: count(events, 'dedup'), cap: events.reduce((n, e) => n + (e.kind === 'cap' ? e.cut.length : 0), 0) },
        prioritize_fallbacks: count(events, 'prioritize_fallback'),
        compressions: count(events, 'compress'),
        ...(startRound > 0 ? { resumed_at_round: startRound } : {}),
        ...(paused ? { paused: true } : {}),
        state: st,
      },
    };
  };

  for (;;) {
    if (st.queue.length === 0) return finish({ reason: 'queue_empty', detail: `queue empty after round ${st.round}: ${st.results.length} tasks done`, step: cs.steps });
    if (pauseAt !== undefined && st.round === pauseAt && st.round > startRound)
      return finish({ reason: 'interrupted', detail: `paused after round ${st.round} (--pause-at ${pauseAt}); ${st.queue.length} tasks queued`, step: cs.steps }, true);
    const stop = caller.startRound();
    if (stop) return finish(stop);
    const round = cs.rounds;
    const before = { calls: cs.calls, input: cs.inputTokens, output: cs.outputTokens, cost: cs.costUsd };
    const task = st.queue[0]!;
    run.trace?.(`round ${round}: ${task}`);

    const exec = await call('execute', executeRequest(scenario, st, round, task));
    if (!exec.ok) return finish(exec.stop);
    st.queue.shift();
    let result = exec.result.message.content ?? '';
    if (o.max_result_tokens !== null) {
      const cut = truncateTokens(result, o.max_result_tokens);
      if (cut.truncated) log({ round, kind: 'result_cap', task, tokens: cut.tokens, kept: o.max_result_tokens });
      result = cut.text;
    }
    st.results.push({ task, result, round, timestamp: new Date().toISOString() });
    st.round = round;

    let createMsgs = createRequest(scenario, st, round);
    const promptTokens = caller.promptTokens(createMsgs);
    if (o.compress_at !== null && promptTokens > o.compress_at && st.results.length - 1 > st.summarized) {
      const sum = await call('summarize', summarizeRequest(scenario, st, round));
      if (!sum.ok) return finish(sum.stop);
      log({ round, kind: 'compress', prompt_tokens: promptTokens, threshold: o.compress_at, results: st.results.length - 1 - st.summarized });
      st.summary = sum.result.message.content ?? '';
      st.summarized = st.results.length - 1;
      createMsgs = createRequest(scenario, st, round);
    }

    const create = await call('create', createMsgs);
    if (!create.ok) return finish(create.stop);
    const created = parseCreated(create.result.message.content ?? '');
    const admitted = admitTasks(created, st.queue, st.results.map((r) => r.task), o, round);
    admitted.events.forEach(log);
    st.queue.push(...admitted.accepted);

    if (st.queue.length > 1) {
      const prio = await call('prioritize', prioritizeRequest(scenario, st.queue, round));
      if (!prio.ok) return finish(prio.stop);
      const answer = prio.result.message.content ?? '';
      const parsed = parsePriority(st.queue, answer);
      if (parsed.ok) st.queue = parsed.queue;
      else log({ round, kind: 'prioritize_fallback', reason: parsed.reason, answer: answer.slice(0, 200) });
    }
    const capped = capQueue(st.queue, o.queue_cap, round);
    if (capped.event) log(capped.event);
    st.queue = capped.queue;

    const entry: RoundLog = {
      round,
      task,
      result_tokens: exec.result.usage.completion_tokens,
      created: created.length,
      accepted: admitted.accepted.length,
      queue_length: st.queue.length,
      queue: [...st.queue],
      calls: cs.calls - before.calls,
      input_tokens: cs.inputTokens - before.input,
      output_tokens: cs.outputTokens - before.output,
      cost_usd: cs.costUsd - before.cost,
    };
    rounds.push(entry);
    run.trace?.(traceRound(entry, result));
  }
}

const count = (events: QueueEvent[], kind: QueueEvent['kind']) => events.filter((e) => e.kind === kind).length;
