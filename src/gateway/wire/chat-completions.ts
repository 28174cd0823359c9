// OpenAI Chat Completions at the gateway's edge (POST /v1/chat/completions): the request located
// in its bytes (json-body.ts), only what the gateway reads parsed and checked (with bench serve's
// own schemas, so both refuse alike), the answer read plain or as server-sent events, errors in
// OpenAI's shape.
import { Buffer } from 'node:buffer';
import { StringDecoder } from 'node:string_decoder';
import { z } from 'zod';
import type { AssistantMessage, ChatMessage, ToolCall, ToolSpec } from '../../contracts/chat.ts';
import { completion, CompletionRequest, Message, streamChunks, Tool, toChatMessage, toToolSpec } from '../../serve/protocol.ts';
import { issuePath } from '../../scenario/yaml-file.ts';
import type { AnswerReader, SentUsage, WireAdapter, WireAnswer, WireCall, WireError } from './adapter.ts';
import { elementSpan, keepArray, sameBytes, scanObject, spanText, splice, type PriorArray, type Span } from './json-body.ts';

/** What is kept of a run's last request: its messages array (bytes and bounds), its tools' bytes, which messages had parts other than text. */
export interface ChatState {
  messages: PriorArray;
  tools: Buffer | null;
  nonText: Uint8Array;
}

/** The members the gateway reads besides messages and tools, checked as bench serve checks them. */
const Fields = CompletionRequest.pick({ model: true, stream: true, stream_options: true, seed: true, max_tokens: true, max_completion_tokens: true, temperature: true });
const FIELD_KEYS = Object.keys(Fields.shape);
const Tools = z.array(Tool);

const invalid = (path: PropertyKey[], message: string): WireError => {
  const param = issuePath(path);
  return { status: 400, message: `Invalid value for '${param}': ${message}`, type: 'invalid_request_error', param, code: 'invalid_value' };
};
const badRequest = (message: string): WireError => ({ status: 400, message, type: 'invalid_request_error' });

/** Why a body that could not be located is refused, in the words bench serve uses. */
function unreadable(body: Buffer): WireError {
  const text = body.toString('utf8');
  if (!text.trim()) return badRequest('Request body is empty: send a JSON chat-completions request');
  try {
    const v: unknown = JSON.parse(text);
    return badRequest(v && typeof v === 'object' && !Array.isArray(v) ? 'Request body could not be read as a JSON object' : 'Request body must be a JSON object');
  } catch (e) {
    return badRequest(`Request body is not valid JSON (${(e as Error).message})`);
  }
}

function parseJson(body: Buffer, s: Span): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(spanText(body, s)) };
  } catch {
    return { ok: false };
  }
}

const hasNonText = (m: z.infer<typeof Message>) => Array.isArray(m.content) && m.content.some((p) => p.type !== 'text');

function parse(body: Buffer, prior: ChatState | null): { ok: true; call: WireCall<ChatState> } | { ok: false; error: WireError } {
  const scanned = scanObject(body, 'messages', prior?.messages ?? null);
  if (!scanned) return { ok: false, error: unreadable(body) };
  if (scanned.duplicate !== null) return { ok: false, error: badRequest(`Request body gives '${scanned.duplicate}' more than once`) };
  const read: Record<string, unknown> = {};
  for (const key of FIELD_KEYS) {
    const span = scanned.members.get(key);
    if (!span) continue;
    const v = parseJson(body, span);
    if (!v.ok) return { ok: false, error: unreadable(body) };
    read[key] = v.value;
  }
  const fields = Fields.safeParse(read);
  if (!fields.success) {
    const i = fields.error.issues[0]!;
    return { ok: false, error: invalid(i.path, i.message) };
  }
  const f = fields.data;
  const array = scanned.array;
  if (!array) return { ok: false, error: invalid(['messages'], scanned.members.has('messages') ? 'expected an array of messages' : 'Invalid input: expected array, received undefined') };
  const n = array.bounds.length / 2;
  if (n === 0) return { ok: false, error: invalid(['messages'], 'Too small: expected array to have >=1 items') };
  const messages: Array<ChatMessage | null> = new Array(n);
  const nonText = new Uint8Array(n);
  for (let k = 0; k < n; k++) {
    if (array.same[k]) {
      messages[k] = null;
      nonText[k] = prior!.nonText[k]!;
      continue;
    }
    const v = parseJson(body, elementSpan(array, k));
    if (!v.ok) return { ok: false, error: unreadable(body) };
    const m = Message.safeParse(v.value);
    if (!m.success) {
      const i = m.error.issues[0]!;
      return { ok: false, error: invalid(['messages', k, ...i.path], i.message) };
    }
    messages[k] = toChatMessage(m.data);
    nonText[k] = hasNonText(m.data) ? 1 : 0;
  }
  const toolsSpan = scanned.members.get('tools') ?? null;
  let tools: WireCall<ChatState>['tools'];
  const toolsSame = toolsSpan !== null && prior?.tools != null && sameBytes(body, toolsSpan, prior.tools);
  if (toolsSame) tools = { same: true };
  else if (!toolsSpan) tools = { same: false, spec: undefined };
  else {
    const v = parseJson(body, toolsSpan);
    if (!v.ok) return { ok: false, error: unreadable(body) };
    const t = Tools.safeParse(v.value);
    if (!t.success) {
      const i = t.error.issues[0]!;
      return { ok: false, error: invalid(['tools', ...i.path], i.message) };
    }
    tools = { same: false, spec: t.data.map(toToolSpec) as ToolSpec[] };
  }
  const stream = f.stream === true;
  // Copied, so the request's body dies with its call; the tools' bytes only when they changed.
  const state: ChatState = {
    messages: keepArray(body, array, prior?.messages ?? null),
    tools: toolsSame ? prior!.tools : toolsSpan ? Buffer.from(body.subarray(toolsSpan.start, toolsSpan.end)) : null,
    nonText,
  };
  return {
    ok: true,
    call: {
      model: f.model,
      messages,
      tools,
      maxOutputTokens: f.max_completion_tokens ?? f.max_tokens ?? null,
      stream,
      clientWantsUsage: f.stream_options?.include_usage === true,
      seed: f.seed ?? null,
      temperature: f.temperature ?? null,
      textOnly: !nonText.includes(1),
      upstreamPath: '/chat/completions',
      forward: (c) => {
        const set: Array<[string, string]> = [];
        if (c.model !== undefined) set.push(['model', JSON.stringify(c.model)]);
        set.push([f.max_completion_tokens != null ? 'max_completion_tokens' : 'max_tokens', String(c.maxOutputTokens)]);
        if (c.seed !== undefined && f.seed === undefined) set.push(['seed', String(c.seed)]);
        if (stream && c.includeUsage) set.push(['stream_options', JSON.stringify({ ...(f.stream_options ?? {}), include_usage: true })]);
        return splice(body, scanned, set);
      },
      state,
      stateBytes: state.messages.bytes.length + (state.tools?.length ?? 0) + 9 * n,
    },
  };
}

interface WireToolCall {
  index?: number;
  id?: string;
  function?: { name?: unknown; arguments?: unknown };
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** The standard fields of an answer's message; tool calls that are not well-formed are left out. */
function messageOf(m: unknown): AssistantMessage {
  const o = (m && typeof m === 'object' ? m : {}) as { content?: unknown; tool_calls?: unknown };
  const calls = (Array.isArray(o.tool_calls) ? (o.tool_calls as WireToolCall[]) : [])
    .filter((c) => c && typeof c === 'object' && c.function && typeof c.function.name === 'string')
    .map((c): ToolCall => ({ id: str(c.id), type: 'function', function: { name: str(c.function!.name), arguments: str(c.function!.arguments) } }));
  return { role: 'assistant', content: typeof o.content === 'string' ? o.content : null, ...(calls.length ? { tool_calls: calls } : {}) };
}

function usageOf(u: unknown): SentUsage | null {
  if (!u || typeof u !== 'object') return null;
  const w = u as { prompt_tokens?: unknown; completion_tokens?: unknown; prompt_tokens_details?: { cached_tokens?: unknown } | null };
  return { prompt: w.prompt_tokens, completion: w.completion_tokens, cached: w.prompt_tokens_details?.cached_tokens };
}

class PlainReader implements AnswerReader {
  private readonly chunks: Buffer[] = [];

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
  }

  end(): ReturnType<AnswerReader['end']> {
    let json: { choices?: Array<{ message?: unknown; finish_reason?: unknown }>; usage?: unknown };
    try {
      json = JSON.parse(Buffer.concat(this.chunks).toString('utf8')) as typeof json;
    } catch (e) {
      return { ok: false, error: `upstream answered with invalid JSON (${(e as Error).message})` };
    }
    if (!json || typeof json !== 'object') return { ok: false, error: 'upstream answered with JSON that is not a completion' };
    const choice = Array.isArray(json.choices) ? json.choices[0] : undefined;
    return { ok: true, answer: { message: messageOf(choice?.message), finish: typeof choice?.finish_reason === 'string' ? choice.finish_reason : null, usage: usageOf(json.usage) } };
  }

  clientBody() {
    return { contentType: 'application/json', pieces: this.chunks };
  }
}

interface StreamChunk {
  choices?: Array<{ delta?: { content?: unknown; tool_calls?: WireToolCall[] }; finish_reason?: unknown }>;
  usage?: unknown;
}

/** Server-sent events, read as they arrive: each event kept as it came (to pass on), and the answer put together from them. */
class StreamReader implements AnswerReader {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  private readonly events: Array<{ text: string; usageOnly: boolean }> = [];
  private content = '';
  private readonly calls = new Map<number, ToolCall>();
  private usage: SentUsage | null = null;
  private finish: string | null = null;

  constructor(private readonly clientWantsUsage: boolean) {}

  push(chunk: Buffer): void {
    this.pending += this.decoder.write(chunk);
    const boundary = /\r?\n\r?\n/g;
    let from = 0;
    for (let m = boundary.exec(this.pending); m; m = boundary.exec(this.pending)) {
      this.take(this.pending.slice(from, m.index + m[0].length));
      from = m.index + m[0].length;
    }
    if (from > 0) this.pending = this.pending.slice(from);
  }

  private take(text: string): void {
    const data = text
      .split(/\r?\n/)
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).trimStart())
      .join('\n');
    let usageOnly = false;
    if (data && data !== '[DONE]') {
      let chunk: StreamChunk | null = null;
      try {
        chunk = JSON.parse(data) as StreamChunk;
      } catch {
        // Not JSON: passed on as it came, read for nothing.
      }
      if (chunk && typeof chunk === 'object') {
        this.usage = usageOf(chunk.usage) ?? this.usage;
        const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
        usageOnly = Array.isArray(chunk.choices) && chunk.choices.length === 0 && chunk.usage != null;
        if (choice) this.add(choice);
      }
    }
    this.events.push({ text, usageOnly });
  }

  private add(choice: NonNullable<StreamChunk['choices']>[number]): void {
    if (typeof choice.finish_reason === 'string') this.finish = choice.finish_reason;
    const delta = choice.delta;
    if (!delta || typeof delta !== 'object') return;
    if (typeof delta.content === 'string') this.content += delta.content;
    for (const piece of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
      const index = typeof piece?.index === 'number' ? piece.index : 0;
      const c = this.calls.get(index) ?? { id: '', type: 'function' as const, function: { name: '', arguments: '' } };
      if (typeof piece.id === 'string' && piece.id) c.id = piece.id;
      c.function.name += str(piece.function?.name);
      c.function.arguments += str(piece.function?.arguments);
      this.calls.set(index, c);
    }
  }

  end(): ReturnType<AnswerReader['end']> {
    this.pending += this.decoder.end();
    if (this.pending) this.take(this.pending);
    this.pending = '';
    const toolCalls = [...this.calls.values()].filter((c) => c.function.name);
    const message: AssistantMessage = { role: 'assistant', content: this.content, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) };
    const answer: WireAnswer = { message, finish: this.finish, usage: this.usage };
    return { ok: true, answer };
  }

  clientBody() {
    // The usage chunk was asked for by the gateway; the agent gets it only if it asked too.
    const kept = this.clientWantsUsage ? this.events : this.events.filter((e) => !e.usageOnly);
    return { contentType: 'text/event-stream', pieces: [Buffer.from(kept.map((e) => e.text).join(''))] };
  }
}

export const chatCompletions: WireAdapter<ChatState> = {
  route: '/v1/chat/completions',
  parse,
  reader: (call) => (call.stream ? new StreamReader(call.clientWantsUsage) : new PlainReader()),
  recorded: (call, model, message, usage) => {
    const c = completion('chatcmpl-replay', model, 0, structuredClone(message), usage);
    if (!call.stream) return Buffer.from(JSON.stringify(c));
    return Buffer.from([...streamChunks(c, true).map((e) => `data: ${JSON.stringify(e)}\n\n`), 'data: [DONE]\n\n'].join(''));
  },
  error: (e) => JSON.stringify({ error: { message: e.message, type: e.type, param: e.param ?? null, code: e.code ?? null } }),
  upstreamErrorMessage: (body) => {
    try {
      const m = (JSON.parse(body) as { error?: { message?: unknown } }).error?.message;
      return typeof m === 'string' ? m : null;
    } catch {
      return null;
    }
  },
};
