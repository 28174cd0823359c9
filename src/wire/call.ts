// A wire protocol at the gateway's edge: Chat Completions, the Responses API and Anthropic Messages,
// one file each, reading and writing each protocol with bench serve's own parts (src/wire/*/spelling.ts). The gateway meters, brakes and records one exchange whatever its
// spelling; an adapter is what it needs to know of one spelling:
//   parse   — the request's bytes → the conversation as ChatMessages (only the ones new since this
//             run's last request: the rest are recognised by their bytes), its tools, its limit
//             on the answer, whether it streams; and a way to forward the same bytes with the
//             gateway's few changes (model, answer limit, seed, usage in the stream) spliced in;
//   reader  — the answer's bytes, plain or streamed, as they arrive → its usage (as sent, checked
//             by the gateway), the assistant message's tool calls (for spin) and why it finished;
//             and the bytes the agent gets (a stream without the usage chunk it did not ask for);
//   error   — a refusal or failure in the caller's own error shape.
import type { Buffer } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import type { AssistantMessage, ChatMessage, ToolSpec, Usage } from '../contracts/chat.ts';
import type { ReadAnswer, SentUsage } from './adapter.ts';

export type { SentUsage };

/** A refusal or failure, before it is spelled in a protocol: HTTP status, message, kind, code. */
export interface WireError {
  status: number;
  message: string;
  /** e.g. invalid_request_error, loopbench_brake, upstream_error. */
  type: string;
  param?: string | null;
  code?: string | null;
}

/** What the gateway changes in a request before forwarding it. */
export interface CallChanges {
  /** The run's model, in place of the one the agent names. */
  model?: string;
  /** The answer's limit the budget projected (the agent's own, when lower). */
  maxOutputTokens: number;
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

/** An answer as read back: its message, why it finished, its usage as sent (unchecked), its id. */
export type WireAnswer = ReadAnswer;

/** Reads one answer as its bytes arrive (the gateway bounds how many). */
export interface AnswerReader {
  push(chunk: Buffer): void;
  /** All bytes are in: the answer, or why it cannot be read. */
  end(): { ok: true; answer: WireAnswer } | { ok: false; error: string };
  /** What the agent gets (after end): content type and bytes. */
  clientBody(): { contentType: string; pieces: Buffer[] };
}

/** Which provider's protocol: an upstream speaks one (or, the simulated models, every one). */
export type WireFamily = 'openai' | 'anthropic';

export interface WireAdapter<S = unknown> {
  /** The route it serves, e.g. `/v1/chat/completions`. */
  readonly route: string;
  readonly family: WireFamily;
  /** Parses a request's bytes, given what was kept of the run's previous request (null: none, or forgotten) and the request's headers and URL. */
  parse(body: Buffer, prior: S | null, request: Pick<IncomingMessage, 'headers' | 'url'>): { ok: true; call: WireCall<S> } | { ok: false; error: WireError };
  reader(call: WireCall<S>): AnswerReader;
  /** The answer as the upstream would send it, from a cassette's message and usage (--replay). */
  recorded(call: WireCall<S>, model: string, message: AssistantMessage, usage: Usage): Buffer;
  /** An error in this protocol's shape: the body the agent gets. */
  error(e: WireError): string;
  /** The message an upstream's error body carries (null when it has none that can be read). */
  upstreamErrorMessage(body: string): string | null;
}
