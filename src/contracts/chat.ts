// The ChatModel contract: the only thing agent loops know about models.
// Messages and tools are in OpenAI chat-completions format, so the same request can go
// to a simulated model in process, to `bench serve`, or to any OpenAI-compatible API.

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: 'system'; content: string; name?: string }
  | { role: 'user'; content: string; name?: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ToolCall[]; name?: string }
  | { role: 'tool'; content: string; tool_call_id: string };

export type AssistantMessage = Extract<ChatMessage, { role: 'assistant' }>;

export interface ToolSpec {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

/** Which part of an agent made a call; carried in every StepRecord. */
export const ROLES = ['act', 'create', 'prioritize', 'execute', 'reflect', 'summarize'] as const;
export type Role = (typeof ROLES)[number];

/**
 * Calls for roles other than `act` name their role in the system message's `name` field (a standard
 * OpenAI field). A simulated model reads it to know which part it plays, so it behaves the same in
 * process and behind `bench serve`.
 */
export function roleOf(messages: ChatMessage[]): Role {
  const system = messages.find((m) => m.role === 'system');
  return ((system && 'name' in system && system.name) || 'act') as Role;
}

/**
 * Structured output (Chat Completions' `response_format`, the Responses API's `text.format`): the
 * answer's text must be JSON, valid for `schema` when one is given.
 */
export type ResponseFormat =
  { type: 'json_object' } | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict?: boolean };

/** Whether and which tool the model must call (OpenAI's `tool_choice`). */
export type ToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  tool_choice?: ToolChoice;
  /** Stop sequences: the answer ends where the first of them would begin. */
  stop?: string[];
  max_tokens?: number;
  temperature?: number;
  seed?: number;
  /** Absent: free text. */
  response_format?: ResponseFormat;
}

/**
 * A call's tokens in one spelling for every wire protocol. `prompt_tokens` is the whole input,
 * cache reads (`cached_tokens`) and cache writes (`cache_write_tokens`) included, as OpenAI counts
 * it (Anthropic's `input_tokens` leaves both out: its adapter adds them back). `completion_tokens`
 * is the whole output, `reasoning_tokens` included.
 */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  /** Input tokens written to a prompt cache (Anthropic's `cache_creation_input_tokens`); absent: none. */
  cache_write_tokens?: number;
  /** Of those, the ones written to the 1-hour cache (Anthropic's `cache_creation.ephemeral_1h_input_tokens`); absent: none. */
  cache_write_1h_tokens?: number;
  /** Output tokens spent on hidden reasoning; absent: none reported. */
  reasoning_tokens?: number;
}

/** What the harness knows about a call besides the request (never sent to a provider). */
export interface CallContext {
  runId: string;
  scenario: string;
  step: number;
  round: number;
  role: Role;
  signal?: AbortSignal;
}

/** Why the answer ended, as providers say it: `length` = cut at max_tokens. */
export type FinishReason = 'stop' | 'tool_calls' | 'length';

export interface ChatResult {
  message: AssistantMessage;
  usage: Usage;
  /** Absent when the source did not say (a cassette recorded before it was kept). */
  finishReason?: FinishReason;
  /** The stop sequence the answer ended at (finishReason `stop`), when one did. */
  stopSequence?: string;
  /** Latency of the call as the model reports it (simulated for sims, measured otherwise). */
  latencyMs: number;
  /** Retries the transport made before this answer (0 when the first attempt answered). */
  retries: number;
}

export interface ChatModel {
  /** The spec it was built from, e.g. `sim:seed-calibrated`, `openai:gpt-4o-mini`. */
  readonly id: string;
  /** True when latency is simulated: the run then uses a virtual clock. */
  readonly simulated: boolean;
  complete(request: ChatRequest, context: CallContext): Promise<ChatResult>;
}

/** A replayed request the cassette does not hold: nothing was measured, and what changed since recording. */
export interface ReplayMiss {
  cassette: string;
  /** The model spec the cassette was recorded under. */
  model: string;
  scenario: string;
  step: number;
  role: Role;
  /** The nearest recorded request's step, and what differs from it (empty when it cannot be told). */
  nearest_step: number | null;
  differs: string[];
  /** The same in one clause, for people. */
  explanation: string;
}

/** A model call failed for good (after the transport's own retries). Ends the run as `error`. */
export class ModelError extends Error {
  constructor(
    message: string,
    readonly retries = 0,
    /** Set when a replay had no recorded answer: the run measured nothing, which is not a breach. */
    readonly replayMiss?: ReplayMiss,
  ) {
    super(message);
    this.name = 'ModelError';
  }
}
