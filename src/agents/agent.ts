import type { Stop } from '../contracts/stop-reason.ts';
import type { ChatMessage } from '../contracts/chat.ts';
import type { Clock } from '../contracts/clock.ts';
import type { QueueState } from './queue/state.ts';
import type { Scenario } from '../scenario/schema.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import type { ModelCaller } from './caller.ts';
import type { LoopHooks } from './hooks.ts';

/** Everything an agent loop gets for one run. Loops do no I/O of their own beyond these. */
export interface AgentRun<S extends Scenario = Scenario> {
  scenario: S;
  caller: ModelCaller;
  tools: ToolRegistry;
  clock: Clock;
  signal?: AbortSignal;
  /** Live observation (`--trace`): one line at a time, as the run goes. */
  trace?: (line: string) => void;
  /** Human control over round-based agents: pause after a round, or continue from a saved state. */
  control?: { pauseAt?: number; resume?: QueueState };
  /** Context strategy and reflection (see withContext, withReflection); absent: PLAIN_HOOKS. */
  hooks?: LoopHooks;
}

export interface AgentOutcome {
  stop: Stop;
  /** The final answer, when the agent gave one. */
  answer: string | null;
  /** The conversation as it grew (what the transcript keeps). */
  messages: ChatMessage[];
  extra?: Record<string, unknown>;
}

/** A loop: one run in, its outcome out. Wrappers (context, reflection) take a loop and return one. */
export type AgentLoop<R extends AgentRun = AgentRun> = (run: R) => Promise<AgentOutcome>;
