// Anthropic Messages (POST /v1/messages) spelled as JSON: `system`, `messages` of text / tool_use /
// tool_result blocks and `tools` with `input_schema` become one chat conversation; the answer goes
// back as content blocks, whole or as the event sequence the Anthropic SDKs parse (message_start,
// content blocks and their deltas, message_delta with the stop reason and usage, message_stop).
// Usage is Anthropic's: `input_tokens` leaves out the cache reads and writes, which have fields of
// their own; inside loopbench the input is the whole, as for every protocol. Structured output is
// `output_config.format` (json_schema) or a forced tool (`tool_choice: {type: 'tool'}`).
import { z } from 'zod';
import type {
  AssistantMessage,
  ChatMessage,
  ChatRequest,
  FinishReason,
  ToolChoice,
  ToolSpec,
  Usage,
} from '../../contracts/chat.ts';
import { issuePath } from '../../scenario/yaml-file.ts';
import { JsonSchemaObject, responseFormat } from '../chat/protocol.ts';
import { wireError, type WireError } from '../error.ts';
import { pieces } from '../pieces.ts';
import type { Answer, ReadAnswer, SentUsage, Spelling, SseEvent, StreamAssembler } from '../adapter.ts';
import { isObject, json } from '../sse.ts';
import { wholeInput } from '../usage.ts';
import type { ResponseStore } from '../store.ts';

const TextBlock = z.looseObject({ type: z.literal('text'), text: z.string() });
const ToolUseBlock = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string(),
  name: z.string(),
  input: z.unknown(),
});
const ToolResultBlock = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string(), text: z.string().optional() }))]).optional(),
  is_error: z.boolean().optional(),
});
/** Images, documents, thinking: accepted, and read as nothing (the sim reads text only). */
const OtherBlock = z.looseObject({ type: z.string() });
const Block = z.union([TextBlock, ToolUseBlock, ToolResultBlock, OtherBlock]);

/** `system` inside `messages`: Claude Code's mid-conversation system messages (beta mid-conversation-system-2026-04-07). */
export const Message = z.looseObject({
  role: z.enum(['user', 'assistant', 'system']),
  content: z.union([z.string(), z.array(Block)]),
});
export type Message = z.infer<typeof Message>;

const Tool = z.looseObject({
  type: z.literal('custom').optional(),
  name: z.string().min(1),
  description: z.string().optional(),
  input_schema: JsonSchemaObject,
});

export const MessagesRequest = z.looseObject({
  model: z.string().min(1),
  max_tokens: z.number().int().positive(),
  messages: z.array(Message),
  system: z.union([z.string(), z.array(z.looseObject({ type: z.literal('text'), text: z.string() }))]).optional(),
  tools: z.array(z.looseObject({ name: z.string().optional(), type: z.string().optional() })).optional(),
  tool_choice: z.looseObject({ type: z.enum(['auto', 'any', 'tool', 'none']), name: z.string().optional() }).optional(),
  stop_sequences: z.array(z.string()).optional(),
  stream: z.boolean().optional(),
  temperature: z.number().min(0).max(1).optional(),
  /** Server-held conversation state (Anthropic's Threads; the SDK's tool runner uses them): only the new turn is sent. */
  thread: z
    .union([
      z.looseObject({ type: z.literal('create') }),
      z.looseObject({ type: z.literal('continue'), previous_message_id: z.string().min(1) }),
    ])
    .nullable()
    .optional(),
  /** Structured output: the answer's text is JSON for the schema (the SDK's messages.parse with zodOutputFormat sends it). */
  output_config: z
    .looseObject({
      format: z
        .looseObject({ type: z.literal('json_schema'), schema: JsonSchemaObject })
        .nullable()
        .optional(),
    })
    .nullable()
    .optional(),
  /** Not an Anthropic field: loopbench's own, so a run's seed reaches the sim (the gateway sets it). */
  seed: z.number().int().optional(),
});
type Body = z.infer<typeof MessagesRequest>;

export interface MessagesCall {
  body: Body;
  /** The whole conversation, system message first (what a Thread keeps), and the tools offered. */
  messages: ChatMessage[];
  tools: ToolSpec[];
}

const invalid = (message: string, status = 400, code: string | null = null): { ok: false; error: WireError } => ({
  ok: false,
  error: wireError(status, message, 'invalid_request_error', null, code),
});

const resultText = (c: z.infer<typeof ToolResultBlock>['content']): string =>
  c === undefined ? '' : typeof c === 'string' ? c : c.map((p) => p.text ?? '').join('');

/** One Anthropic message as chat messages: a user turn's tool results are tool messages (in order), its text a user message. */
export function toChat(m: Message, out: ChatMessage[]): void {
  const blocks = typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : m.content;
  if (m.role === 'system') {
    out.push({
      role: 'system',
      content: blocks.map((b) => (b.type === 'text' ? (b as z.infer<typeof TextBlock>).text : '')).join(''),
    });
    return;
  }
  if (m.role === 'assistant') {
    const texts: string[] = [];
    const calls: NonNullable<AssistantMessage['tool_calls']> = [];
    for (const b of blocks) {
      if (b.type === 'text') texts.push((b as z.infer<typeof TextBlock>).text);
      else if (b.type === 'tool_use') {
        const u = b as z.infer<typeof ToolUseBlock>;
        calls.push({
          id: u.id,
          type: 'function',
          function: { name: u.name, arguments: JSON.stringify(u.input ?? {}) },
        });
      }
    }
    out.push({
      role: 'assistant',
      content: texts.length ? texts.join('') : null,
      ...(calls.length ? { tool_calls: calls } : {}),
    });
    return;
  }
  const texts: string[] = [];
  for (const b of blocks) {
    if (b.type === 'tool_result') {
      const r = b as z.infer<typeof ToolResultBlock>;
      out.push({ role: 'tool', tool_call_id: r.tool_use_id, content: resultText(r.content) });
    } else if (b.type === 'text') texts.push((b as z.infer<typeof TextBlock>).text);
  }
  if (texts.length || !blocks.some((b) => b.type === 'tool_result'))
    out.push({ role: 'user', content: texts.join('') });
}

/** Whether a message carries more than text, tool calls and their results (images, documents, thinking). */
export function beyondText(m: Message): boolean {
  return (
    typeof m.content !== 'string' &&
    m.content.some((b) => b.type !== 'text' && b.type !== 'tool_use' && b.type !== 'tool_result')
  );
}

/** The system prompt's text (its blocks joined), if any. */
export const systemText = (system: Body['system']): string | undefined =>
  typeof system === 'string' ? system : system?.map((b) => b.text).join('\n');

/** Client tools as ToolSpecs; `other`: a server tool (web search, code execution…), which only a provider can run; `error`: a client tool that is not well-formed. */
export function clientTools(
  tools: NonNullable<Body['tools']>,
): { specs: ToolSpec[]; other: string | null } | { error: string } {
  const specs: ToolSpec[] = [];
  let other: string | null = null;
  for (const [k, t] of tools.entries()) {
    if (t.type && t.type !== 'custom') {
      other ??= `tools.${k}: tools of type '${t.type}' (server tools) are not supported by the simulated model; define client tools with input_schema`;
      continue;
    }
    const f = Tool.safeParse(t);
    if (!f.success)
      return { error: `tools.${k}: ${f.error.issues[0]!.message} (${issuePath(f.error.issues[0]!.path)})` };
    const { name, description, input_schema } = f.data;
    specs.push({
      type: 'function',
      function: { name, ...(description !== undefined ? { description } : {}), parameters: input_schema },
    });
  }
  return { specs, other };
}

function parse(store: ResponseStore, raw: unknown) {
  const r = MessagesRequest.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0]!;
    return invalid(`${issuePath(i.path)}: ${i.message}`);
  }
  const body = r.data;
  const thread = body.thread?.type === 'continue' ? body.thread.previous_message_id : undefined;
  const system = systemText(body.system);
  const before = thread === undefined ? undefined : store.thread(thread, system);
  if (thread !== undefined && !before)
    return invalid(
      `thread: no Thread state for previous_message_id '${thread}': replay the full conversation with thread {"type": "create"}`,
      404,
      'thread_not_found',
    );
  if (thread !== undefined && store.continued(thread))
    return invalid(
      `thread: the response '${thread}' has been continued already; continue from the Thread's latest response`,
      400,
      'thread_already_continued',
    );
  if (body.messages.length === 0) return invalid('messages: at least one message is required');
  const client = clientTools(body.tools ?? []);
  if ('error' in client) return invalid(client.error);
  let tools = client.specs;
  // A Thread's later turns may leave out what stays the same: its tools and system prompt.
  if (thread !== undefined && body.tools === undefined) tools = store.tools(thread) ?? [];
  const tc = body.tool_choice;
  if (tc?.type === 'tool' && !tools.some((t) => t.function.name === tc.name))
    return invalid(`tool_choice: no tool named '${tc.name ?? ''}' in tools`);
  if (tc && tc.type !== 'none' && tools.length === 0)
    return invalid('tool_choice: may only be specified while providing tools');
  const choice: ToolChoice | undefined = !tc
    ? undefined
    : tc.type === 'tool'
      ? { type: 'function', function: { name: tc.name! } }
      : tc.type === 'any'
        ? 'required'
        : tc.type;
  const messages: ChatMessage[] = before ?? [];
  if (system) messages.unshift({ role: 'system', content: system });
  for (const m of body.messages) toChat(m, messages);
  const format = body.output_config?.format;
  const chat: ChatRequest = {
    model: body.model,
    messages,
    max_tokens: body.max_tokens,
    ...(tools.length ? { tools } : {}),
    ...(choice ? { tool_choice: choice } : {}),
    ...(body.stop_sequences?.length ? { stop: body.stop_sequences } : {}),
    ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
    ...(body.seed !== undefined ? { seed: body.seed } : {}),
    ...(format ? { response_format: responseFormat('output', format.schema, true) } : {}),
  };
  return { ok: true as const, request: { body, messages, tools }, chat, stream: body.stream === true };
}

/** Usage in Anthropic's spelling: input without the cache reads and writes, which are counted apart. */
export function messagesUsage(u: Usage) {
  const write = u.cache_write_tokens ?? 0;
  return {
    input_tokens: u.prompt_tokens - u.cached_tokens - write,
    cache_creation_input_tokens: write,
    cache_read_input_tokens: u.cached_tokens,
    output_tokens: u.completion_tokens,
    ...(u.reasoning_tokens ? { output_tokens_details: { thinking_tokens: u.reasoning_tokens } } : {}),
    service_tier: 'standard',
  };
}

/** Anthropic's usage as sent, its input made whole (the uncached input and the cache reads and writes). */
export function messagesSentUsage(u: unknown): SentUsage | null {
  if (!isObject(u)) return null;
  const details = isObject(u.output_tokens_details) ? u.output_tokens_details : {};
  // The cache writes by lifetime: 1-hour writes are billed above 5-minute ones.
  const byTtl = isObject(u.cache_creation) ? u.cache_creation : {};
  return {
    prompt: wholeInput(u.input_tokens, u.cache_read_input_tokens, u.cache_creation_input_tokens),
    completion: u.output_tokens,
    cached: u.cache_read_input_tokens,
    cacheWrite: u.cache_creation_input_tokens,
    cacheWrite1h: byTtl.ephemeral_1h_input_tokens,
    reasoning: details.thinking_tokens,
  };
}

function stopReason(a: Answer): string {
  if (a.finishReason === 'tool_calls') return 'tool_use';
  if (a.finishReason === 'length') return 'max_tokens';
  return a.stopSequence !== undefined ? 'stop_sequence' : 'end_turn';
}

/** Arguments as tool_use input: an object. Arguments that are not JSON (the sim's malformed share, the bad-args fault) cannot be one, and go as {}. */
function inputOf(args: string): Record<string, unknown> {
  const v = json(args);
  return isObject(v) ? v : {};
}

function contentBlocks(m: AssistantMessage | null): Array<Record<string, unknown>> {
  if (!m) return [];
  const blocks: Array<Record<string, unknown>> = [];
  if (m.content) blocks.push({ type: 'text', text: m.content });
  for (const c of m.tool_calls ?? [])
    blocks.push({ type: 'tool_use', id: c.id, name: c.function.name, input: inputOf(c.function.arguments) });
  return blocks;
}

function messageObject(a: Answer, done: boolean): Record<string, unknown> {
  return {
    id: `msg_${a.uid}`,
    type: 'message',
    role: 'assistant',
    model: a.model,
    content: done ? contentBlocks(a.message) : [],
    stop_reason: done ? stopReason(a) : null,
    stop_sequence: done ? (a.stopSequence ?? null) : null,
    ...(a.usage ? { usage: done ? messagesUsage(a.usage) : { ...messagesUsage(a.usage), output_tokens: 1 } } : {}),
  };
}

function streamEvents(a: Answer): SseEvent[] {
  const out: SseEvent[] = [];
  const emit = (type: string, fields: Record<string, unknown> = {}) =>
    out.push({ event: type, data: JSON.stringify({ type, ...fields }) });
  emit('message_start', { message: messageObject(a, false) });
  let index = 0;
  const m = a.message;
  if (m?.content) {
    emit('content_block_start', { index, content_block: { type: 'text', text: '' } });
    emit('ping');
    for (const text of pieces(m.content)) emit('content_block_delta', { index, delta: { type: 'text_delta', text } });
    emit('content_block_stop', { index });
    index++;
  }
  for (const c of m?.tool_calls ?? []) {
    emit('content_block_start', {
      index,
      content_block: { type: 'tool_use', id: c.id, name: c.function.name, input: {} },
    });
    for (const partial_json of pieces(c.function.arguments, 3))
      emit('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } });
    emit('content_block_stop', { index });
    index++;
  }
  const { service_tier: _tier, ...usage } = a.usage ? messagesUsage(a.usage) : { service_tier: '' };
  emit('message_delta', {
    delta: { stop_reason: stopReason(a), stop_sequence: a.stopSequence ?? null },
    usage: a.usage ? usage : { output_tokens: 0 },
  });
  emit('message_stop');
  return out;
}

const FINISH: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  pause_turn: 'stop',
  refusal: 'stop',
};

function readMessage(body: unknown): ReadAnswer | null {
  if (!isObject(body) || !Array.isArray(body.content)) return null;
  const message: AssistantMessage = { role: 'assistant', content: null };
  for (const b of body.content as unknown[]) {
    if (!isObject(b)) continue;
    if (b.type === 'text') message.content = (message.content ?? '') + String(b.text ?? '');
    if (b.type === 'tool_use' && typeof b.name === 'string')
      (message.tool_calls ??= []).push({
        id: String(b.id ?? ''),
        type: 'function',
        function: { name: b.name, arguments: typeof b.input === 'string' ? b.input : JSON.stringify(b.input ?? {}) },
      });
  }
  const finishReason = FINISH[String(body.stop_reason)] ?? (message.tool_calls?.length ? 'tool_calls' : 'stop');
  return {
    message,
    usage: messagesSentUsage(body.usage),
    finishReason,
    id: typeof body.id === 'string' ? body.id : null,
  };
}

/** Anthropic's error types by HTTP status. */
const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  405: 'invalid_request_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

/** Anthropic's error body; the internal error's code (thread_not_found, loopbench_max_steps…) goes in `details.error_code`, where the SDK reads it. */
export function messagesError(e: WireError): unknown {
  const type = ERROR_TYPES[e.status] ?? (e.status >= 500 ? 'api_error' : 'invalid_request_error');
  return { type: 'error', error: { type, message: e.message, ...(e.code ? { details: { error_code: e.code } } : {}) } };
}

/** Anthropic's events put together: message_start's message, each content block and its deltas, message_delta's stop reason and usage; null without message_stop (a stream cut short, or ended by an error event). */
function assemble(): StreamAssembler {
  let message: Record<string, unknown> | null = null;
  let usage: Record<string, unknown> = {};
  const blocks: Array<Record<string, unknown>> = [];
  const partial: string[] = [];
  let stopped = false;
  return {
    add(_event, ev) {
      if (!isObject(ev)) return;
      if (ev.type === 'message_start' && isObject(ev.message)) {
        message = { ...ev.message };
        usage = { ...(isObject(ev.message.usage) ? ev.message.usage : {}) };
      } else if (ev.type === 'content_block_start' && isObject(ev.content_block) && typeof ev.index === 'number') {
        blocks[ev.index] = { ...ev.content_block };
        partial[ev.index] = '';
      } else if (
        ev.type === 'content_block_delta' &&
        isObject(ev.delta) &&
        typeof ev.index === 'number' &&
        blocks[ev.index]
      ) {
        if (ev.delta.type === 'text_delta')
          blocks[ev.index]!.text = String(blocks[ev.index]!.text ?? '') + String(ev.delta.text ?? '');
        if (ev.delta.type === 'input_json_delta') partial[ev.index] += String(ev.delta.partial_json ?? '');
      } else if (ev.type === 'message_delta' && message) {
        if (isObject(ev.delta)) message.stop_reason = ev.delta.stop_reason;
        // Counters in message_delta are the whole message's: they replace, never add.
        if (isObject(ev.usage))
          Object.assign(usage, Object.fromEntries(Object.entries(ev.usage).filter(([, v]) => v != null)));
      } else if (ev.type === 'message_stop') stopped = true;
    },
    end() {
      if (!message || !stopped) return null;
      // A tool_use block's input is its streamed JSON, kept as the text it was (broken JSON stays broken, as the SDK sees it).
      const content = blocks.map((b, i) => (b.type === 'tool_use' && partial[i] ? { ...b, input: partial[i] } : b));
      return readMessage({ ...(message as object), content, usage });
    },
  };
}

/** Anthropic Messages spelled as JSON; a request with `thread` has its answer kept in `store` for the next turn. */
export function messagesSpelling(store: ResponseStore): Spelling<MessagesCall> {
  return {
    name: 'messages',
    route: '/v1/messages',
    idPrefix: 'msg_',
    parse: (body) => parse(store, body),
    render: (a) => messageObject(a, true),
    events: (a) => streamEvents(a),
    answered(a, call) {
      const thread = call.body.thread;
      if (thread && a.message)
        store.keepThread(
          thread.type === 'continue' ? thread.previous_message_id : null,
          `msg_${a.uid}`,
          call.messages,
          a.message,
          call.tools,
        );
    },
    errorBody: messagesError,
    read: readMessage,
    assemble,
  };
}
