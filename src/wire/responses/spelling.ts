// The Responses API (POST /v1/responses) spelled as JSON. A request's `input` (a string, or items:
// messages, function_call, function_call_output, item_reference), its `instructions` and the
// conversation of `previous_response_id` become one chat conversation; the answer goes back as
// output items (a message, then one function_call per tool call), whole or as the event sequence
// the official SDKs parse (response.created … output items and deltas … response.completed with usage).
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
import { openaiError, wireError } from '../error.ts';
import { pieces } from '../pieces.ts';
import type { Answer, ReadAnswer, SentUsage, Spelling, SseEvent, StreamAssembler } from '../adapter.ts';
import { isObject } from '../sse.ts';
import type { ResponseStore } from '../store.ts';

const TextPart = z.looseObject({ type: z.string(), text: z.string().optional(), refusal: z.string().optional() });
const Content = z.union([z.string(), z.array(TextPart)]);

const MessageItem = z.looseObject({
  type: z.literal('message').optional(),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: Content,
  id: z.string().optional(),
});
const FunctionCallItem = z.looseObject({
  type: z.literal('function_call'),
  call_id: z.string(),
  name: z.string(),
  arguments: z.string(),
  id: z.string().optional(),
});
const FunctionOutputItem = z.looseObject({
  type: z.literal('function_call_output'),
  call_id: z.string(),
  output: Content,
});
/**
 * The ids a client sends back (previous_response_id, item_reference), no longer than any id bench serve or a
 * provider hands out by far: an unknown one is quoted in the error, and a megabyte of id must not be.
 */
const SentId = z.string().max(256);
const ReferenceItem = z.looseObject({ type: z.literal('item_reference'), id: SentId });
/** Reasoning items are sent back by agents of reasoning models; the sim does not reason, so they carry nothing it reads. */
const ReasoningItem = z.looseObject({ type: z.literal('reasoning') });
export const Item = z.union([MessageItem, FunctionCallItem, FunctionOutputItem, ReferenceItem, ReasoningItem]);
export type Item = z.infer<typeof Item>;

const FunctionTool = z.looseObject({
  type: z.literal('function'),
  name: z.string().min(1),
  description: z.string().nullable().optional(),
  parameters: JsonSchemaObject.nullable().optional(),
  strict: z.boolean().nullable().optional(),
});

const Format = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_object') }),
  z.looseObject({
    type: z.literal('json_schema'),
    name: z.string().min(1),
    schema: JsonSchemaObject.optional(),
    strict: z.boolean().nullable().optional(),
  }),
]);

export const ResponsesRequest = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(Item)]),
  instructions: z.string().nullable().optional(),
  tools: z.array(z.looseObject({ type: z.string() })).optional(),
  tool_choice: z
    .union([z.enum(['none', 'auto', 'required']), z.looseObject({ type: z.literal('function'), name: z.string() })])
    .optional(),
  parallel_tool_calls: z.boolean().nullable().optional(),
  max_output_tokens: z.number().int().positive().nullable().optional(),
  text: z.looseObject({ format: Format.optional() }).nullable().optional(),
  previous_response_id: SentId.nullable().optional(),
  store: z.boolean().nullable().optional(),
  stream: z.boolean().nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  /** Not a Responses API field: loopbench's own, so a run's seed reaches the sim (the gateway sets it). */
  seed: z.number().int().optional(),
  conversation: z.unknown().optional(),
  /** WebSocket mode's warm-up: false prepares a response with no output (websocket.ts). */
  generate: z.boolean().optional(),
});
type Body = z.infer<typeof ResponsesRequest>;

export interface ResponsesCall {
  body: Body;
  /** The conversation without the instructions: what a stored response keeps. */
  history: ChatMessage[];
  /** Sent on a WebSocket: its answer is kept even with `store: false` (the API keeps a connection's responses; here the server's store does). */
  socket?: boolean;
}

const text = (c: z.infer<typeof Content>): string =>
  typeof c === 'string' ? c : c.map((p) => p.text ?? p.refusal ?? '').join('');

const invalid = (param: string, message: string) => ({
  ok: false as const,
  error: wireError(400, message, 'invalid_request_error', param, 'invalid_value'),
});

/** An item as it reads: an item_reference resolved to the item `stored` finds for it (null: none). */
export function resolved(
  item: Item,
  stored: (id: string) => unknown,
): Exclude<Item, z.infer<typeof ReferenceItem>> | null {
  if (item.type !== 'item_reference') return item as Exclude<Item, z.infer<typeof ReferenceItem>>;
  const parsed = Item.safeParse(stored(item.id));
  return !parsed.success || parsed.data.type === 'item_reference'
    ? null
    : (parsed.data as Exclude<Item, z.infer<typeof ReferenceItem>>);
}

/**
 * Input items as chat messages, appended to `out`: an assistant's text and the function calls after it
 * are one assistant message, as in Chat Completions. `stored` finds an item_reference's item; the ids
 * it does not know are returned (their items left out).
 */
export function toMessages(items: readonly Item[], stored: (id: string) => unknown, out: ChatMessage[]): string[] {
  const missing: string[] = [];
  for (const sent of items) {
    const item = resolved(sent, stored);
    if (!item) {
      missing.push((sent as z.infer<typeof ReferenceItem>).id);
      continue;
    }
    const last = out.at(-1);
    if (item.type === 'reasoning') continue;
    if (item.type === 'function_call') {
      const call = {
        id: item.call_id,
        type: 'function' as const,
        function: { name: item.name, arguments: item.arguments },
      };
      if (last?.role === 'assistant') (last.tool_calls ??= []).push(call);
      else out.push({ role: 'assistant', content: null, tool_calls: [call] });
    } else if (item.type === 'function_call_output') {
      out.push({ role: 'tool', tool_call_id: item.call_id, content: text(item.output) });
    } else {
      const m = item as z.infer<typeof MessageItem>;
      if (m.role !== 'assistant')
        out.push({ role: m.role === 'developer' ? 'system' : m.role, content: text(m.content) });
      else if (last?.role === 'assistant' && !last.tool_calls) last.content = (last.content ?? '') + text(m.content);
      else out.push({ role: 'assistant', content: text(m.content) });
    }
  }
  return missing;
}

/** Whether an item carries more than text (images, files) or state only the provider can count (reasoning). */
export function beyondText(item: Item): boolean {
  if (item.type === 'reasoning') return true;
  const content =
    item.type === 'function_call_output'
      ? item.output
      : item.type === 'message' || item.type === undefined
        ? (item as z.infer<typeof MessageItem>).content
        : '';
  return Array.isArray(content) && content.some((p) => !TEXT_PARTS.has(p.type));
}
const TEXT_PARTS = new Set(['input_text', 'output_text', 'text', 'refusal']);

/** The function tools of a request as ToolSpecs, and the first tool of another type (web search, file search…), if any. */
export function functionTools(tools: ReadonlyArray<{ type: string }>): {
  specs: ToolSpec[];
  other: { index: number; type: string } | null;
} {
  const specs: ToolSpec[] = [];
  let other: { index: number; type: string } | null = null;
  for (const [index, t] of tools.entries()) {
    const f = FunctionTool.safeParse(t);
    if (!f.success) {
      other ??= { index, type: t.type };
      continue;
    }
    const { name, description, parameters } = f.data;
    specs.push({
      type: 'function',
      function: { name, ...(description != null ? { description } : {}), ...(parameters ? { parameters } : {}) },
    });
  }
  return { specs, other };
}

function parse(store: ResponseStore, raw: unknown) {
  const r = ResponsesRequest.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0]!;
    const param = issuePath(i.path);
    return invalid(param, `Invalid value for '${param}': ${i.message}`);
  }
  const body = r.data;
  if (body.conversation !== undefined)
    return invalid(
      'conversation',
      "'conversation' (server-side conversations) is not supported by bench serve: send the items, or previous_response_id.",
    );
  const { specs: tools } = functionTools(body.tools ?? []);
  const choice = body.tool_choice;
  if (choice && typeof choice === 'object' && !tools.some((t) => t.function.name === choice.name))
    return invalid('tool_choice', `Invalid value for 'tool_choice': no function named '${choice.name}' in 'tools'.`);
  let history: ChatMessage[] = [];
  if (body.previous_response_id) {
    const before = store.previous(body.previous_response_id);
    if (!before)
      return {
        ok: false as const,
        error: wireError(
          400,
          `Previous response with id '${body.previous_response_id}' not found.`,
          'invalid_request_error',
          'previous_response_id',
          'previous_response_not_found',
        ),
      };
    history = before;
  }
  const missing = toMessages(
    typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : body.input,
    (id) => store.item(id),
    history,
  );
  if (missing.length)
    return {
      ok: false as const,
      error: wireError(
        400,
        `Item with id '${missing[0]}' not found.`,
        'invalid_request_error',
        'input',
        'item_not_found',
      ),
    };
  if (history.length === 0) return invalid('input', "Invalid value for 'input': no input items.");
  const f = body.text?.format;
  const format =
    f?.type === 'json_object'
      ? { type: 'json_object' as const }
      : f?.type === 'json_schema'
        ? responseFormat(f.name, f.schema, f.strict)
        : undefined;
  const toolChoice: ToolChoice | undefined =
    choice === undefined
      ? undefined
      : typeof choice === 'string'
        ? choice
        : { type: 'function', function: { name: choice.name } };
  const chat: ChatRequest = {
    model: body.model,
    messages: body.instructions ? [{ role: 'system', content: body.instructions }, ...history] : history,
    ...(tools.length ? { tools } : {}),
    ...(toolChoice ? { tool_choice: toolChoice } : {}),
    ...(body.max_output_tokens != null ? { max_tokens: body.max_output_tokens } : {}),
    ...(body.temperature != null ? { temperature: body.temperature } : {}),
    ...(body.seed !== undefined ? { seed: body.seed } : {}),
    ...(format ? { response_format: format } : {}),
  };
  return { ok: true as const, request: { body, history }, chat, stream: body.stream === true };
}

/** Usage in the Responses API's spelling. */
export function responsesUsage(u: Usage) {
  return {
    input_tokens: u.prompt_tokens,
    input_tokens_details: { cached_tokens: u.cached_tokens },
    output_tokens: u.completion_tokens,
    output_tokens_details: { reasoning_tokens: u.reasoning_tokens ?? 0 },
    total_tokens: u.prompt_tokens + u.completion_tokens,
  };
}

/** The answer's output items: its text as a message, then each tool call. */
function outputItems(a: Answer): Array<Record<string, unknown>> {
  const m = a.message;
  if (!m) return [];
  const items: Array<Record<string, unknown>> = [];
  if (m.content)
    items.push({
      id: `msg_${a.uid}`,
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: m.content, annotations: [], logprobs: [] }],
    });
  (m.tool_calls ?? []).forEach((c, i) =>
    items.push({
      id: `fc_${a.uid}_${i}`,
      type: 'function_call',
      status: 'completed',
      call_id: c.id,
      name: c.function.name,
      arguments: c.function.arguments,
    }),
  );
  return items;
}

function responseObject(a: Answer, body: Body, done: boolean): Record<string, unknown> {
  const length = a.finishReason === 'length';
  return {
    id: `resp_${a.uid}`,
    object: 'response',
    created_at: a.created,
    status: !done ? 'in_progress' : length ? 'incomplete' : 'completed',
    background: false,
    error: null,
    incomplete_details: done && length ? { reason: 'max_output_tokens' } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: a.model,
    output: done ? outputItems(a) : [],
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    reasoning: { effort: null, summary: null },
    service_tier: 'default',
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: { format: body.text?.format ?? { type: 'text' } },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_p: 1,
    truncation: 'disabled',
    usage: done && a.usage ? responsesUsage(a.usage) : null,
    user: null,
    metadata: {},
  };
}

/** The streamed form: the lifecycle events around each output item's added, delta, done events. */
function streamEvents(a: Answer, body: Body): SseEvent[] {
  const out: SseEvent[] = [];
  const emit = (type: string, fields: Record<string, unknown>) =>
    out.push({ event: type, data: JSON.stringify({ type, sequence_number: out.length, ...fields }) });
  emit('response.created', { response: responseObject(a, body, false) });
  emit('response.in_progress', { response: responseObject(a, body, false) });
  outputItems(a).forEach((item, output_index) => {
    const item_id = item.id;
    if (item.type === 'message') {
      const whole = (item.content as Array<{ text: string }>)[0]!.text;
      emit('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } });
      const part = { type: 'output_text', text: '', annotations: [], logprobs: [] };
      emit('response.content_part.added', { item_id, output_index, content_index: 0, part });
      for (const delta of pieces(whole))
        emit('response.output_text.delta', { item_id, output_index, content_index: 0, delta, logprobs: [] });
      emit('response.output_text.done', { item_id, output_index, content_index: 0, text: whole, logprobs: [] });
      emit('response.content_part.done', { item_id, output_index, content_index: 0, part: { ...part, text: whole } });
    } else {
      const args = String(item.arguments);
      emit('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } });
      for (const delta of pieces(args, 3))
        emit('response.function_call_arguments.delta', { item_id, output_index, delta });
      emit('response.function_call_arguments.done', { item_id, output_index, name: item.name, arguments: args });
    }
    emit('response.output_item.done', { output_index, item });
  });
  const final = responseObject(a, body, true);
  emit(final.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response: final });
  return out;
}

/** The Responses API's usage as sent. */
export function responsesSentUsage(u: unknown): SentUsage | null {
  if (!isObject(u)) return null;
  const inDetail = isObject(u.input_tokens_details) ? u.input_tokens_details : {};
  const outDetail = isObject(u.output_tokens_details) ? u.output_tokens_details : {};
  return {
    prompt: u.input_tokens,
    completion: u.output_tokens,
    cached: inDetail.cached_tokens,
    reasoning: outDetail.reasoning_tokens,
  };
}

/** A response object read back: its message text and function calls as one assistant message. */
function readResponse(r: unknown): ReadAnswer | null {
  if (!isObject(r) || !Array.isArray(r.output)) return null;
  const message: AssistantMessage = { role: 'assistant', content: null };
  const items = (r.output as unknown[]).filter(isObject);
  for (const item of items) {
    if (item.type === 'message' && Array.isArray(item.content)) {
      const t = (item.content as unknown[])
        .map((p) => (isObject(p) && typeof p.text === 'string' ? p.text : ''))
        .join('');
      message.content = (message.content ?? '') + t;
    } else if (item.type === 'function_call' && typeof item.name === 'string') {
      (message.tool_calls ??= []).push({
        id: String(item.call_id ?? ''),
        type: 'function',
        function: { name: item.name, arguments: typeof item.arguments === 'string' ? item.arguments : '' },
      });
    }
  }
  const incomplete =
    r.status === 'incomplete' && isObject(r.incomplete_details) && r.incomplete_details.reason === 'max_output_tokens';
  const finishReason: FinishReason = incomplete ? 'length' : message.tool_calls?.length ? 'tool_calls' : 'stop';
  return {
    message,
    usage: responsesSentUsage(r.usage),
    finishReason,
    id: typeof r.id === 'string' ? r.id : null,
    items,
  };
}

/** The events that end a streamed response, each carrying the whole response. */
const FINAL_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/** A streamed response is its final event's response (the events before it are its pieces). */
function assemble(): StreamAssembler {
  let final: unknown = null;
  return {
    add(_event, data) {
      if (isObject(data) && typeof data.type === 'string' && FINAL_EVENTS.has(data.type)) final = data.response;
    },
    end: () => readResponse(final),
  };
}

/** The Responses API spelled as JSON; answers it sends with `store` on (the default) are kept in `store`. */
export function responsesSpelling(store: ResponseStore): Spelling<ResponsesCall> {
  return {
    name: 'responses',
    route: '/v1/responses',
    idPrefix: 'resp_',
    parse: (body) => parse(store, body),
    render: (a, call) => responseObject(a, call.body, true),
    events: (a, call) => streamEvents(a, call.body),
    answered(a, call) {
      if (call.body.store === false && !call.socket) return;
      if (a.message) store.keepResponse(`resp_${a.uid}`, call.history, a.message, outputItems(a));
      // A warm-up has no answer: the response that continues it continues its input.
      else if (call.body.generate === false) store.save(`resp_${a.uid}`, [...call.history]);
    },
    errorBody: openaiError,
    read: readResponse,
    assemble,
  };
}
