// A wire protocol as an adapter pair at the edge: parse a request body into the one ChatRequest the
// meter, the brakes and the simulated model use, and render an answer (whole, streamed, or an
// error) back in the caller's spelling. Chat Completions, the Responses API and Anthropic Messages
// are three spellings of one exchange; adding a protocol is one adapter, not a second server.
import type { AssistantMessage, ChatRequest, FinishReason, Usage } from '../../contracts/chat.ts';
import type { ApiError } from '../protocol.ts';

/** One answer of the model before any protocol spells it. */
export interface Answer {
  /** Unique per answer; each protocol adds its own prefix (chatcmpl-, resp_, msg_). */
  uid: string;
  model: string;
  /** Unix seconds. */
  created: number;
  /** null: the answer has no content at all (the `empty` fault). */
  message: AssistantMessage | null;
  /** null: sent without usage (the `no-usage` fault). */
  usage: Usage | null;
  finishReason: FinishReason;
  /** The stop sequence the answer ended at, when one did. */
  stopSequence?: string;
}

/** One server-sent event: `event:` (when the protocol names its events) and `data:`. */
export interface SseEvent {
  event?: string;
  data: string;
}

/** What a protocol reads back of an answer in its spelling (an upstream's, through the gateway). */
export interface ReadAnswer {
  message: AssistantMessage;
  /** null when the answer carries none. */
  usage: Usage | null;
  finishReason: FinishReason;
}

export type Parsed<R> = { ok: true; request: R; chat: ChatRequest; stream: boolean } | { ok: false; error: ApiError };

export interface WireAdapter<R = unknown> {
  /** `chat`, `responses`, `messages`: what usage logs and records call it. */
  readonly name: string;
  /** The route it answers, e.g. `/v1/responses`. */
  readonly route: string;
  /** What its answers' ids start with (`chatcmpl-`, `resp_`, `msg_`), before the answer's uid. */
  readonly idPrefix: string;
  parse(body: unknown): Parsed<R>;
  /** The answer as one JSON body. */
  render(a: Answer, request: R): unknown;
  /** The answer as the protocol's server-sent events, in order (a terminator included). */
  events(a: Answer, request: R): SseEvent[];
  /** An error in this protocol's shape; the status is kept. */
  error(e: ApiError): { status: number; body: unknown };
  /** An answer body in this protocol, read back. */
  read(body: unknown): ReadAnswer | null;
  /** A streamed answer in this protocol, put together from its events. */
  readEvents(events: readonly SseEvent[]): ReadAnswer | null;
}

/** The text form of events, as they go on the wire. */
export function sseText(events: readonly SseEvent[]): string {
  return events.map((e) => `${e.event ? `event: ${e.event}\n` : ''}data: ${e.data}\n\n`).join('');
}

/** The events of a server-sent stream, in order. */
export function parseSse(text: string): SseEvent[] {
  const out: SseEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length) out.push({ ...(event ? { event } : {}), data: data.join('\n') });
  }
  return out;
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A JSON body, or null when it is not one. */
export function json(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
