// Chat Completions (POST /v1/chat/completions) spelled as JSON: the request and completion formats
// of protocol.ts, streamed as `data:` chunks ending in [DONE], and a completion read back (whole or
// from its chunks) by the one reader every caller uses: bench serve's clients, the gateway, the OpenAI provider.
import type { AssistantMessage, FinishReason, ToolCall } from '../../contracts/chat.ts';
import {
  completion,
  parseCompletionRequest,
  streamChunks,
  type Completion,
  type CompletionRequest,
} from './protocol.ts';
import type { Answer, ReadAnswer, SentUsage, Spelling, StreamAssembler } from '../adapter.ts';
import { openaiError } from '../error.ts';
import { isObject } from '../sse.ts';

/** The completion object of an answer (no choices for an empty one, no usage when it has none). */
export function completionOf(a: Answer): Completion {
  const c = completion(
    `chatcmpl-${a.uid}`,
    a.model,
    a.created,
    a.message ?? { role: 'assistant', content: null },
    a.usage ?? { prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0 },
    a.finishReason,
  );
  const out: Completion = a.message ? c : { ...c, choices: [] };
  if (a.usage) return out;
  const { usage: _usage, ...rest } = out;
  return rest;
}

/** Chat Completions' usage as sent (cache writes where a compatible server reports them: ours, or LiteLLM's top-level field). */
export function chatUsage(u: unknown): SentUsage | null {
  if (!isObject(u)) return null;
  const p = isObject(u.prompt_tokens_details) ? u.prompt_tokens_details : {};
  const c = isObject(u.completion_tokens_details) ? u.completion_tokens_details : {};
  return {
    prompt: u.prompt_tokens,
    completion: u.completion_tokens,
    cached: p.cached_tokens,
    cacheWrite: p.cache_write_tokens ?? u.cache_creation_input_tokens,
    reasoning: c.reasoning_tokens,
  };
}

const FINISH: Record<string, FinishReason> = {
  stop: 'stop',
  tool_calls: 'tool_calls',
  length: 'length',
  function_call: 'tool_calls',
};
const finishOf = (f: unknown, m: AssistantMessage): FinishReason =>
  FINISH[typeof f === 'string' ? f : ''] ?? (m.tool_calls?.length ? 'tool_calls' : 'stop');

const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** The standard fields of an answer's message; tool calls that are not well-formed are left out. */
function messageOf(m: unknown): AssistantMessage {
  const o = isObject(m) ? m : {};
  const calls = (Array.isArray(o.tool_calls) ? (o.tool_calls as unknown[]) : [])
    .filter(
      (c): c is { id?: unknown; function: { name: string; arguments?: unknown } } =>
        isObject(c) && isObject(c.function) && typeof c.function.name === 'string',
    )
    .map((c): ToolCall => ({
      id: str(c.id),
      type: 'function',
      function: { name: c.function.name, arguments: str(c.function.arguments) },
    }));
  return {
    role: 'assistant',
    content: typeof o.content === 'string' ? o.content : null,
    ...(calls.length ? { tool_calls: calls } : {}),
  };
}

/** A completion read back. */
export function readCompletion(body: unknown): ReadAnswer | null {
  if (!isObject(body) || !Array.isArray(body.choices)) return null;
  const choice = isObject(body.choices[0]) ? body.choices[0] : {};
  const message = messageOf(choice.message);
  return {
    message,
    usage: chatUsage(body.usage),
    finishReason: finishOf(choice.finish_reason, message),
    id: typeof body.id === 'string' ? body.id : null,
  };
}

/** Stream chunks put together: content deltas appended, tool calls by index, the usage chunk's usage, the last finish reason. */
function assemble(): StreamAssembler {
  const calls = new Map<number, ToolCall>();
  let content = '';
  let usage: SentUsage | null = null;
  let finish: unknown;
  let id: string | null = null;
  return {
    add(_event, chunk) {
      if (!isObject(chunk)) return;
      if (typeof chunk.id === 'string') id ??= chunk.id;
      if (chunk.usage != null) usage = chatUsage(chunk.usage) ?? usage;
      const choice = Array.isArray(chunk.choices) && isObject(chunk.choices[0]) ? chunk.choices[0] : null;
      if (!choice) return;
      if (typeof choice.finish_reason === 'string') finish = choice.finish_reason;
      const delta = isObject(choice.delta) ? choice.delta : {};
      if (typeof delta.content === 'string') content += delta.content;
      for (const piece of Array.isArray(delta.tool_calls) ? (delta.tool_calls as unknown[]) : []) {
        if (!isObject(piece)) continue;
        const index = typeof piece.index === 'number' ? piece.index : 0;
        const c = calls.get(index) ?? { id: '', type: 'function' as const, function: { name: '', arguments: '' } };
        if (typeof piece.id === 'string' && piece.id) c.id = piece.id;
        const f = isObject(piece.function) ? piece.function : {};
        c.function.name += str(f.name);
        c.function.arguments += str(f.arguments);
        calls.set(index, c);
      }
    },
    end() {
      const toolCalls = [...calls.values()].filter((c) => c.function.name);
      const message: AssistantMessage = {
        role: 'assistant',
        content,
        ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
      };
      return { message, usage, finishReason: finishOf(finish, message), id };
    },
  };
}

export const chatSpelling: Spelling<CompletionRequest> = {
  name: 'chat',
  route: '/v1/chat/completions',
  idPrefix: 'chatcmpl-',
  parse(body) {
    const p = parseCompletionRequest(body);
    return p.ok ? { ok: true, request: p.request, chat: p.chat, stream: p.request.stream === true } : p;
  },
  render: (a) => completionOf(a),
  events(a, request) {
    const chunks = streamChunks(completionOf(a), request.stream_options?.include_usage === true);
    return [...chunks.map((c) => ({ data: JSON.stringify(c) })), { data: '[DONE]' }];
  },
  // Chat Completions keeps nothing: every request carries its whole conversation.
  answered: () => {},
  errorBody: openaiError,
  read: readCompletion,
  assemble,
};
