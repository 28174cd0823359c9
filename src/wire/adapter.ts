// A wire protocol as one adapter at the edge, used by bench serve (answering as the simulated
// model), the gateway (relaying an agent's calls to an upstream) and the OpenAI provider (reading a
// provider's answers). Chat Completions, the Responses API and Anthropic Messages are three spellings
// of one exchange; adding a protocol is one adapter (src/wire/<protocol>/), not a second server.
// An adapter knows of its spelling:
//   parse      — a request's JSON → the one ChatRequest the meter, the brakes and the sim use;
//   parseBytes — a request's bytes → the conversation as ChatMessages (only the ones new since this
//                run's last request: the rest are recognised by their bytes), its tools, its limit on
//                the answer, whether it streams; and a way to forward the same bytes with the
//                gateway's few changes (model, answer limit, seed, usage in the stream) spliced in;
//   render, events — an answer, whole or as server-sent events;
//   read, assemble, reader — an answer read back (a JSON body, events, or bytes as they arrive):
//                its usage as sent, its message, why it finished;
//   errorBody  — a refusal or failure in the caller's own error shape.
import type { Buffer } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import type { AssistantMessage, ChatMessage, ChatRequest, FinishReason, ToolSpec, Usage } from '../contracts/chat.ts';
import type { WireError } from './error.ts';

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
 * count before it believes it (src/gateway/usage-check.ts); the OpenAI provider takes it whole or
 * not at all (usage.ts usageFrom).
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

export type Parsed<R> = { ok: true; request: R; chat: ChatRequest; stream: boolean } | { ok: false; error: WireError };

/** What the gateway changes in a request before forwarding it. */
export interface CallChanges {
  /** The run's model, in place of the one the agent names. */
  model?: string;
  /** The answer's limit, when the run's budget lowered the agent's (absent: the request's own, as sent). */
  maxOutputTokens?: number;
  /** Set when the agent sent no seed of its own. */
  seed?: number;
  /** Ask the upstream to report usage in a stream (the agent gets that part only if it asked too). */
  includeUsage: boolean;
}

/** One request as the gateway reads it. `S` is what the adapter keeps for the run's next request. */
export interface WireCall<S> {
  model: string;
  /**
   * The conversation, one entry per message, in order: a new ChatMessage, or null where the message
   * is byte for byte the one at the same place in this run's previous request (counted then).
   */
  messages: Array<ChatMessage | null>;
  /** The tool definitions; `same` when they are byte for byte the previous request's. */
  tools: { same: true } | { same: false; spec: ToolSpec[] | undefined };
  /** The answer's limit the request asks for (null: none). */
  maxOutputTokens: number | null;
  stream: boolean;
  /** The agent asked for usage in its stream. */
  clientWantsUsage: boolean;
  seed: number | null;
  temperature: number | null;
  /** Whether every part of the conversation is text (the prompt's size can then be bounded: images and files cannot). */
  textOnly: boolean;
  /** Where to POST it, below the upstream's base URL (`/chat/completions`). */
  upstreamPath: string;
  /** The headers it is forwarded with: the upstream's key as its protocol sends one, and the protocol's own the agent sent (anthropic-version…). */
  headers(apiKey: string | undefined): Record<string, string>;
  /** The request's bytes with the changes spliced in, as pieces to write in order. */
  forward(changes: CallChanges): Buffer[];
  /** What to keep for the run's next request. */
  state: S;
  /** Bytes `state` holds (the cache of conversations is bounded by them). */
  stateBytes: number;
}

/** Reads one answer as its bytes arrive (the gateway bounds how many). */
export interface AnswerReader {
  push(chunk: Buffer): void;
  /** All bytes are in: the answer, or why it cannot be read. */
  end(): { ok: true; answer: ReadAnswer } | { ok: false; error: string };
  /** What the agent gets (after end): content type and bytes. */
  clientBody(): { contentType: string; pieces: Buffer[] };
}

/** How a request came: its headers and URL, and `websocket` when it was a frame on a WebSocket (the Responses API's WebSocket mode: streamed, and kept on the connection). */
export type SentOn = Pick<IncomingMessage, 'headers' | 'url'> & { websocket?: boolean };

/** Which provider's protocol: an upstream speaks one (or, the simulated models, every one). */
export type WireFamily = 'openai' | 'anthropic';

/** One protocol. `R` is a request as parse reads it; `S` what parseBytes keeps for the run's next request. */
export interface WireAdapter<R = unknown, S = unknown> {
  /** `chat`, `responses`, `messages`: what usage logs and records call it. */
  readonly name: string;
  /** The route it answers, e.g. `/v1/responses`. */
  readonly route: string;
  /** What its answers' ids start with (`chatcmpl-`, `resp_`, `msg_`), before the answer's uid. */
  readonly idPrefix: string;
  readonly family: WireFamily;
  parse(body: unknown): Parsed<R>;
  /** The answer as one JSON body. */
  render(a: Answer, request: R): unknown;
  /** The answer as the protocol's server-sent events, in order (a terminator included). */
  events(a: Answer, request: R): SseEvent[];
  /** An answer was sent for `request`: a protocol with server-held conversations keeps it for the requests that continue it. */
  answered(a: Answer, request: R): void;
  /** An error's body in this protocol's shape (sent with the error's status). */
  errorBody(e: WireError): unknown;
  /** An answer body in this protocol, read back (null: not an answer of this protocol). */
  read(body: unknown): ReadAnswer | null;
  /** Reads a streamed answer in this protocol as its events arrive. */
  assemble(): StreamAssembler;
  /** Parses a request's bytes, given what was kept of the run's previous request (null: none, or forgotten) and how it was sent. */
  parseBytes(
    body: Buffer,
    prior: S | null,
    request: SentOn,
  ): { ok: true; call: WireCall<S> } | { ok: false; error: WireError };
  /** Reads an upstream's answer to `call` as its bytes arrive (and keeps it, for a protocol with server-held conversations). */
  reader(call: WireCall<S>): AnswerReader;
  /** The answer as the upstream would send it, from a cassette's message and usage (--replay). */
  recorded(call: WireCall<S>, model: string, message: AssistantMessage, usage: Usage): Buffer;
  /** The message an upstream's error body carries (null when it has none that can be read). */
  upstreamErrorMessage(body: string): string | null;
}

/** The part of an adapter that spells answers and reads them back as JSON (a protocol's spelling.ts). */
export type Spelling<R> = Pick<
  WireAdapter<R>,
  'name' | 'route' | 'idPrefix' | 'parse' | 'render' | 'events' | 'answered' | 'errorBody' | 'read' | 'assemble'
>;
