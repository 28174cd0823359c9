// The task-driven agent (BabyAGI's three roles). One round: execute the first task (only it) →
// create new tasks from the goal, the last result and the queue → reprioritise the queue. Shared
// state is the queue and the result store. It ends when the queue is empty or a brake fires
// (rounds, calls, cost, tokens, time), or pauses after a chosen round for a person to look.
import type { Stop } from '../contracts/stop-reason.ts';
import type { ChatMessage, Role } from '../contracts/chat.ts';
import { truncateTokens } from '../meter/truncate.ts';
import { savedTotals } from '../meter/ledger.ts';
import { noTotals } from '../contracts/run-totals.ts';
import type { TaskqueueScenario } from '../scenario/schema.ts';
import type { AgentOutcome, AgentRun } from './agent.ts';
import { admitTasks, capQueue, parsePriority, type QueueEvent } from './queue/constraints.ts';
import { parseCreated } from '../contracts/taskqueue-format.ts';
import { taskqueueOptions } from './queue/options.ts';
import { createRequest, executeRequest, prioritizeRequest, summarizeRequest } from './queue/prompts.ts';
import type { QueueState } from './queue/state.ts';
import type { RoundLog } from './queue/round-log.ts';
import { describeEvent, traceRound } from './queue/trace.ts';

export interface RoleTotals {
  calls: number;
  input_tokens: number;
  output_tokens: number;
}

function freshState(s: TaskqueueScenario): QueueState {
  return {
    format: 'loopbench-taskqueue-state/1',
    scenario: s.id,
    round: 0,
    queue: [...s.initial_tasks],
    results: [],
    summary: null,
    summarized: 0,
    totals: savedTotals(noTotals()),
  };
}

export async function runTaskqueue(run: AgentRun<TaskqueueScenario>): Promise<AgentOutcome> {
  const q = new QueueRun(run);
  for (;;) {
    const end = q.endBeforeRound() ?? (await q.playRound());
    if (end) return end;
  }
}

/** A round that ended the run says how; one that went on returns null. */
type RoundEnd = AgentOutcome | null;

/** One task-queue run: its shared state (queue, results), what it logs, and one method per step of a round. */
class QueueRun {
  private readonly scenario: TaskqueueScenario;
  private readonly caller: AgentRun['caller'];
  private readonly o: ReturnType<typeof taskqueueOptions>;
  private readonly st: QueueState;
  private readonly startRound: number;
  private readonly events: QueueEvent[] = [];
  private readonly rounds: RoundLog[] = [];
  /** Tokens per role, counted here: the caller's call log is only kept when transcripts are. */
  private readonly byRole: Partial<Record<Role, RoleTotals>> = {};

  constructor(private readonly run: AgentRun<TaskqueueScenario>) {
    this.scenario = run.scenario;
    this.caller = run.caller;
    this.o = taskqueueOptions(run.caller.settings);
    this.st = run.control?.resume ? structuredClone(run.control.resume) : freshState(run.scenario);
    // Budgets hold across a pause: the resumed run starts from what the paused one had spent.
    this.caller.resumeFrom({ rounds: this.st.round, ...this.st.totals });
    this.startRound = this.st.round;
  }

  /** The queue ran dry, the run pauses here (--pause-at), or a brake refuses the next round. */
  endBeforeRound(): RoundEnd {
    const { st } = this;
    const steps = this.caller.state.steps;
    if (st.queue.length === 0)
      return this.finish({
        reason: 'queue_empty',
        detail: `queue empty after round ${st.round}: ${st.results.length} tasks done`,
        step: steps,
      });
    const pauseAt = this.run.control?.pauseAt;
    if (pauseAt !== undefined && st.round === pauseAt && st.round > this.startRound)
      return this.finish(
        {
          reason: 'interrupted',
          detail: `paused after round ${st.round} (--pause-at ${pauseAt}); ${st.queue.length} tasks queued`,
          step: steps,
        },
        true,
      );
    const stop = this.caller.startRound();
    return stop ? this.finish(stop) : null;
  }

  /** Execute the first task, create tasks from its result, reprioritise, cap: one round. */
  async playRound(): Promise<RoundEnd> {
    const cs = this.caller.state;
    const round = cs.rounds;
    const before = { calls: cs.calls, input: cs.inputTokens, output: cs.outputTokens, cost: cs.costUsd };
    const task = this.st.queue[0]!;
    this.run.trace?.(`round ${round}: ${task}`);

    const executed = await this.execute(round, task);
    if ('stop' in executed) return this.finish(executed.stop);
    const createMsgs = await this.creationPrompt(round);
    if ('stop' in createMsgs) return this.finish(createMsgs.stop);
    const created = await this.createTasks(round, createMsgs.messages);
    if ('stop' in created) return this.finish(created.stop);
    const prioritized = await this.prioritize(round);
    if (prioritized) return this.finish(prioritized);
    const capped = capQueue(this.st.queue, this.o.queue_cap, round);
    if (capped.event) this.log(capped.event);
    this.st.queue = capped.queue;

    const entry: RoundLog = {
      round,
      task,
      result_tokens: executed.resultTokens,
      created: created.created,
      accepted: created.accepted,
      queue_length: this.st.queue.length,
      queue: [...this.st.queue],
      calls: cs.calls - before.calls,
      input_tokens: cs.inputTokens - before.input,
      output_tokens: cs.outputTokens - before.output,
      cost_usd: cs.costUsd - before.cost,
    };
    this.rounds.push(entry);
    this.run.trace?.(traceRound(entry, executed.result));
    return null;
  }

  /** The execution call does the task; its result (capped at max_result_tokens) goes to the result store. */
  private async execute(
    round: number,
    task: string,
  ): Promise<{ stop: Stop } | { result: string; resultTokens: number }> {
    const exec = await this.call('execute', executeRequest(this.scenario, this.st, round, task));
    if (!exec.ok) return { stop: exec.stop };
    this.st.queue.shift();
    let result = exec.result.message.content ?? '';
    if (this.o.max_result_tokens !== null) {
      const cut = truncateTokens(result, this.o.max_result_tokens);
      if (cut.truncated)
        this.log({ round, kind: 'result_cap', task, tokens: cut.tokens, kept: this.o.max_result_tokens });
      result = cut.text;
    }
    this.st.results.push({ task, result, round, timestamp: new Date().toISOString() });
    this.st.round = round;
    return { result, resultTokens: exec.result.usage.completion_tokens };
  }

  /** The task-creation prompt; when it would pass compress_at, older results are folded into a summary first. */
  private async creationPrompt(round: number): Promise<{ stop: Stop } | { messages: ChatMessage[] }> {
    const { st, o } = this;
    const messages = createRequest(this.scenario, st, round);
    const promptTokens = this.caller.promptTokens(messages);
    if (o.compress_at === null || promptTokens <= o.compress_at || st.results.length - 1 <= st.summarized)
      return { messages };
    const sum = await this.call('summarize', summarizeRequest(this.scenario, st, round));
    if (!sum.ok) return { stop: sum.stop };
    this.log({
      round,
      kind: 'compress',
      prompt_tokens: promptTokens,
      threshold: o.compress_at,
      results: st.results.length - 1 - st.summarized,
    });
    st.summary = sum.result.message.content ?? '';
    st.summarized = st.results.length - 1;
    return { messages: createRequest(this.scenario, st, round) };
  }

  /** The creation call proposes tasks; the constraints (anchor, dedup) decide which join the queue. */
  private async createTasks(
    round: number,
    messages: ChatMessage[],
  ): Promise<{ stop: Stop } | { created: number; accepted: number }> {
    const create = await this.call('create', messages);
    if (!create.ok) return { stop: create.stop };
    const created = parseCreated(create.result.message.content ?? '');
    const admitted = admitTasks(
      created,
      this.st.queue,
      this.st.results.map((r) => r.task),
      this.o,
      round,
    );
    admitted.events.forEach((e) => this.log(e));
    this.st.queue.push(...admitted.accepted);
    return { created: created.length, accepted: admitted.accepted.length };
  }

  /** The prioritization call reorders a queue of two or more; an answer that does not parse keeps the old order. */
  private async prioritize(round: number): Promise<Stop | null> {
    if (this.st.queue.length <= 1) return null;
    const prio = await this.call('prioritize', prioritizeRequest(this.scenario, this.st.queue, round));
    if (!prio.ok) return prio.stop;
    const answer = prio.result.message.content ?? '';
    const parsed = parsePriority(this.st.queue, answer);
    if (parsed.ok) this.st.queue = parsed.queue;
    else this.log({ round, kind: 'prioritize_fallback', reason: parsed.reason, answer: answer.slice(0, 200) });
    return null;
  }

  private async call(role: Role, messages: ChatMessage[]) {
    const out = await this.caller.call(role, messages);
    if (out.ok || out.stop.reason === 'error') {
      const t = (this.byRole[role] ??= { calls: 0, input_tokens: 0, output_tokens: 0 });
      t.calls++;
      t.input_tokens += out.ok ? out.result.usage.prompt_tokens : 0;
      t.output_tokens += out.ok ? out.result.usage.completion_tokens : 0;
    }
    return out;
  }

  private log(e: QueueEvent): void {
    this.events.push(e);
    this.run.trace?.(`  ${describeEvent(e)}`);
  }

  private finish(stop: Stop, paused = false): AgentOutcome {
    const { st, events } = this;
    const cs = this.caller.state;
    st.totals = savedTotals(cs);
    const initial =
      this.startRound === 0 ? this.scenario.initial_tasks.length : (this.run.control?.resume?.queue.length ?? 0);
    return {
      stop,
      answer: null,
      messages: [],
      extra: {
        initial_queue_length: initial,
        final_queue_length: st.queue.length,
        rounds: this.rounds,
        events,
        tokens_by_role: this.byRole,
        dropped: {
          anchor: count(events, 'anchor'),
          dedup: count(events, 'dedup'),
          cap: events.reduce((n, e) => n + (e.kind === 'cap' ? e.cut.length : 0), 0),
        },
        prioritize_fallbacks: count(events, 'prioritize_fallback'),
        compressions: count(events, 'compress'),
        ...(this.startRound > 0 ? { resumed_at_round: this.startRound } : {}),
        ...(paused ? { paused: true } : {}),
        state: st,
      },
    };
  }
}

const count = (events: QueueEvent[], kind: QueueEvent['kind']) => events.filter((e) => e.kind === kind).length;
