// Chat Completions (POST /v1/chat/completions) as a wire adapter: the request and completion
// formats of protocol.ts, streamed as `data:` chunks ending in [DONE].
import type { AssistantMessage, FinishReason, ToolCall, Usage } from '../../contracts/chat.ts';
import { completion, parseCompletionRequest, streamChunks, type Completion, type CompletionRequest } from '../protocol.ts';
import { isObject, json, type Answer, type ReadAnswer, type SseEvent, type WireAdapter } from './adapter.ts';

/** The completion object of an answer (no choices for an empty one, no usage when it has none). */
export function completionOf(a: Answer): Completion {
  const c = completion(`chatcmpl-${a.uid}`, a.model, a.created, a.message ?? { role: 'assistant', content: null }, a.usage ?? { prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0 }, a.finishReason);
  const out: Completion = a.message ? c : { ...c, choices: [] };
  if (a.usage) return out;
  const { usage: _usage, ...rest } = out;
  return rest;
}

interface ChatWireUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number } | null;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
}

/** Chat Completions' usage in the one internal spelling. */
export function chatUsage(u: unknown): Usage | null {
  if (!isObject(u) || typeof u.prompt_tokens !== 'number') return null;
  const w = u as ChatWireUsage;
  const reasoning = w.completion_tokens_details?.reasoning_tokens ?? 0;
  const write = w.prompt_tokens_details?.cache_write_tokens ?? 0;
  return {
    prompt_tokens: w.prompt_tokens!,
    completion_tokens: w.completion_tokens ?? 0,
    cached_tokens: w.prompt_tokens_details?.cached_tokens ?? 0,
    ...(write ? { cache_write_tokens: write } : {}),
    ...(reasoning ? { reasoning_tokens: reasoning } : {}),
  };
}

const FINISH: Record<string, FinishReason> = { stop: 'stop', tool_calls: 'tool_calls', length: 'length', function_call: 'tool_calls' };

interface StreamDelta {
  content?: string | null;
  tool_calls?: Array<{ index: number; id?: string; function?: { name?: string; arguments?: string } }>;
}

export const chatAdapter: WireAdapter<CompletionRequest> = {
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
  error: (e) => ({ status: e.status, body: e.body }),
  read(body) {
    if (!isObject(body) || !Array.isArray(body.choices)) return null;
    const choice = body.choices[0] as { message?: AssistantMessage; finish_reason?: string } | undefined;
    const message = choice?.message ?? { role: 'assistant', content: null };
    return { message, usage: chatUsage(body.usage), finishReason: FINISH[choice?.finish_reason ?? ''] ?? (message.tool_calls?.length ? 'tool_calls' : 'stop') };
  },
  readEvents(events: readonly SseEvent[]): ReadAnswer | null {
    const calls = new Map<number, ToolCall>();
    let content = '';
    let usage: Usage | null = null;
    let finish: string | undefined;
    for (const e of events) {
      const chunk = e.data === '[DONE]' ? null : (json(e.data) as { choices?: Array<{ delta?: StreamDelta; finish_reason?: string | null }>; usage?: unknown } | null);
      if (!isObject(chunk)) continue;
      usage = chatUsage(chunk.usage) ?? usage;
      const choice = chunk.choices?.[0];
      finish = choice?.finish_reason ?? finish;
      content += choice?.delta?.content ?? '';
      for (const piece of choice?.delta?.tool_calls ?? []) {
        const c = calls.get(piece.index) ?? { id: '', type: 'function' as const, function: { name: '', arguments: '' } };
        if (piece.id) c.id = piece.id;
        c.function.name += piece.function?.name ?? '';
        c.function.arguments += piece.function?.arguments ?? '';
        calls.set(piece.index, c);
      }
    }
    const toolCalls = [...calls.values()];
    return { message: { role: 'assistant', content, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) }, usage, finishReason: FINISH[finish ?? ''] ?? (toolCalls.length ? 'tool_calls' : 'stop') };
  },
};
