// What a role writer of the simulated model returns: the assistant message and its simulated latency.
// Its own file, below sim-model.ts and the writers alike, so neither imports the other for it.
import type { AssistantMessage } from '../contracts/chat.ts';

export interface SimAnswer {
  message: AssistantMessage;
  latencyMs: number;
}
