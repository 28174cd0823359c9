// `--record FILE` / `--replay FILE` through the gateway, as in `bench run`: each answered call is
// added to the cassette under the key of what was sent (after the gateway's own changes: model,
// max_tokens, seed); a replayed call is answered from it, streamed or not, with the recorded usage.
import type { AssistantMessage, ChatRequest } from '../contracts/chat.ts';
import { requestKey, type Cassette } from '../models/cassette.ts';
import { completion, streamChunks } from '../serve/protocol.ts';
import type { Forwarded } from './upstream.ts';

export interface Tape {
  /** The model spec the calls are recorded under (the run's --model). */
  spec: string;
  scenario: string;
  record?: Cassette;
  replay?: Cassette;
}

export const tapeKey = (tape: Tape, sent: ChatRequest) => requestKey(tape.spec, sent);

/** The recorded answer as the upstream would have sent it, or null when this request was never recorded. */
export function replayed(tape: Tape, key: string, model: string, stream: boolean): Forwarded | null {
  const hit = tape.replay?.find(key);
  if (!hit) return null;
  const message = structuredClone(hit.response.message);
  const c = completion(`chatcmpl-replay-${key.slice(0, 12)}`, model, 0, message, hit.response.usage);
  const events = stream ? [...streamChunks(c, true).map((e) => JSON.stringify(e)), '[DONE]'] : [];
  return { ok: true, usage: { ...hit.response.usage }, message, body: JSON.stringify(c), stream, events };
}

/** The standard fields of an answer, as a cassette holds them (a provider's extras, like `refusal`, are not part of it). */
export function tapeMessage(m: AssistantMessage): AssistantMessage {
  const calls = (m.tool_calls ?? []).map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.function.name, arguments: c.function.arguments } }));
  return { role: 'assistant', content: m.content ?? null, ...(calls.length ? { tool_calls: calls } : {}) };
}
