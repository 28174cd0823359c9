import type { Stop } from '../brakes/stop-reason.ts';
import type { ChatMessage } from '../models/chat.ts';
import type { Clock } from '../runner/clock.ts';
import type { Scenario } from '../scenario/schema.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import type { ModelCaller } from './caller.ts';
import type { LoopHooks } from './hooks.ts';

/** Everything an agent loop gets for one run. Loops do no I/O of their own beyond these. */
export interface AgentRun {
  scenario: Scenario;
  caller: ModelCaller;
  tools: ToolRegistry;
  clock: Clock;
  signal?: AbortSignal;
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
