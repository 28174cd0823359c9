// `--record FILE` / `--replay FILE` through the gateway, as in `bench run`: each answered call is
// added to the cassette under the key of what was sent (after the gateway's own changes: model,
// max_tokens, seed); a replayed call is answered from it, streamed or not, with the recorded usage
// (the adapter spells the recorded answer as its upstream would: WireAdapter.recorded).
import type { AssistantMessage, ChatRequest } from '../contracts/chat.ts';
import { requestKey, type Cassette } from '../models/cassette.ts';

export interface Tape {
  /** The model spec the calls are recorded under (the run's --model). */
  spec: string;
  scenario: string;
  record?: Cassette;
  replay?: Cassette;
}

export const tapeKey = (tape: Tape, sent: ChatRequest) => requestKey(tape.spec, sent);

/** The standard fields of an answer, as a cassette holds them (a provider's extras, like `refusal`, are not part of it). */
export function tapeMessage(m: AssistantMessage): AssistantMessage {
  const calls = (m.tool_calls ?? []).map((c) => ({
    id: c.id,
    type: 'function' as const,
    function: { name: c.function.name, arguments: c.function.arguments },
  }));
  return { role: 'assistant', content: m.content ?? null, ...(calls.length ? { tool_calls: calls } : {}) };
}
