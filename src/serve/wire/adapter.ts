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

/**
 * An answer's usage as it was sent, in the internal names but unchecked: the gateway checks each
 * count before it believes it (src/gateway/usage-check.ts); usageFrom keeps the numbers.
 * `prompt` is the whole input (a protocol that leaves cache reads and writes out of it, as
 * Anthropic's does, has them added back), `reasoning` part of `completion`.
 */
export interface SentUsage {
  prompt: unknown;
  completion: unknown;
  cached: unknown;
  cacheWrite?: unknown;
  /** The part of cacheWrite written to the 1-hour cache. */
  cacheWrite1h?: unknown;
  reasoning?: unknown;
}

/** What a protocol reads back of an answer in its spelling (an upstream's, through the gateway). */
export interface ReadAnswer {
  message: AssistantMessage;
  /** null when the answer carries none. */
  usage: SentUsage | null;
  finishReason: FinishReason;
  /** The answer's id as sent (resp_…, msg_…), null when it has none. */
  id: string | null;
  /** The Responses API's output items as sent (an agent may send them back by reference). */
  items?: Array<Record<string, unknown>>;
}

/** A streamed answer put together event by event, as the events arrive. */
export interface StreamAssembler {
  /** One event: its `event:` name, and its data parsed as JSON (the text as it came when it is not JSON). */
  add(event: string | undefined, data: unknown): void;
  /** The answer, or null when the events never made one (a stream cut before its end). */
  end(): ReadAnswer | null;
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
  /** An answer body in this protocol, read back (null: not an answer of this protocol). */
  read(body: unknown): ReadAnswer | null;
  /** Reads a streamed answer in this protocol as its events arrive. */
  assemble(): StreamAssembler;
}

/** A streamed answer read back whole, from its events. */
export function readEvents(wire: Pick<WireAdapter, 'assemble'>, events: readonly SseEvent[]): ReadAnswer | null {
  const a = wire.assemble();
  for (const e of events) a.add(e.event, e.data === '[DONE]' ? e.data : (json(e.data) ?? e.data));
  return a.end();
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** Usage as sent, taken as it is where it is a count (serve's clients, tests): null when its prompt is none. */
export function usageFrom(u: SentUsage | null): Usage | null {
  if (!u || !isCount(u.prompt)) return null;
  const n = (v: unknown) => (isCount(v) ? v : 0);
  return {
    prompt_tokens: u.prompt,
    completion_tokens: n(u.completion),
    cached_tokens: n(u.cached),
    ...(n(u.cacheWrite) ? { cache_write_tokens: n(u.cacheWrite) } : {}),
    ...(n(u.cacheWrite1h) ? { cache_write_1h_tokens: n(u.cacheWrite1h) } : {}),
    ...(n(u.reasoning) ? { reasoning_tokens: n(u.reasoning) } : {}),
  };
}

/** Anthropic-style input: the uncached part and the cache reads and writes, added up when each is a count (else the input as sent, for the check to name). */
export function wholeInput(input: unknown, read: unknown, write: unknown): unknown {
  if (!isCount(input)) return input;
  return input + (isCount(read) ? read : 0) + (isCount(write) ? write : 0);
}

/** The text form of events, as they go on the wire. */
export function sseText(events: readonly SseEvent[]): string {
  return events.map((e) => `${e.event ? `event: ${e.event}\n` : ''}data: ${e.data}\n\n`).join('');
}

/** One block of a server-sent stream (the text between blank lines) as its event, or null when it has no data. */
export function parseSseBlock(block: string): SseEvent | null {
  let event: string | undefined;
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  return data.length ? { ...(event ? { event } : {}), data: data.join('\n') } : null;
}

/** The events of a server-sent stream, in order. */
export function parseSse(text: string): SseEvent[] {
  return text.split(/\r?\n\r?\n/).map(parseSseBlock).filter((e): e is SseEvent => e !== null);
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
