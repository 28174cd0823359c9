// The Chat Completions adapter (POST /v1/chat/completions): its JSON spelling (spelling.ts), and a
// request located in its bytes (json-body.ts), only what the gateway reads parsed and checked (with
// the same schemas as a whole request, so both refuse alike), the answer read plain or as
// server-sent events, errors in OpenAI's shape.
import { Buffer } from 'node:buffer';
import { z } from 'zod';
import type { ChatMessage, ToolSpec } from '../../contracts/chat.ts';
import type { AnswerReader, WireAdapter, WireCall } from '../adapter.ts';
import { errorMessage, readJson, SseReader, type SseBlock } from '../answer-bytes.ts';
import type { WireError } from '../error.ts';
import { elementSpan, keepArray, type PriorArray } from '../json-body.ts';
import { invalid, keptTools, readElement, scanRequest, toolsMember, withChanges } from '../request-bytes.ts';
import { isObject } from '../sse.ts';
import { completion, CompletionRequest, Message, streamChunks, Tool, toChatMessage, toToolSpec } from './protocol.ts';
import { chatSpelling, readCompletion } from './spelling.ts';

/** What is kept of a run's last request: its messages array (bytes and bounds), its tools' bytes, which messages had parts other than text. */
export interface ChatState {
  messages: PriorArray;
  tools: Buffer | null;
  nonText: Uint8Array;
}

/** The members the gateway reads besides messages and tools, checked as bench serve checks them. */
const Fields = CompletionRequest.pick({
  model: true,
  stream: true,
  stream_options: true,
  seed: true,
  max_tokens: true,
  max_completion_tokens: true,
  temperature: true,
});
const Tools = z.array(Tool);

/** OpenAI's authentication: the key as the bearer token. */
export const bearer = (key: string | undefined): Record<string, string> =>
  key ? { authorization: `Bearer ${key}` } : {};

const WHAT = 'chat-completions';

const hasNonText = (m: z.infer<typeof Message>) => Array.isArray(m.content) && m.content.some((p) => p.type !== 'text');

function parse(
  body: Buffer,
  prior: ChatState | null,
): { ok: true; call: WireCall<ChatState> } | { ok: false; error: WireError } {
  const request = scanRequest(body, 'messages', prior?.messages ?? null, Fields, WHAT);
  if (!request.ok) return request;
  const { scanned, fields: f } = request;
  const array = scanned.array;
  if (!array)
    return {
      ok: false,
      error: invalid(
        ['messages'],
        scanned.members.has('messages')
          ? 'expected an array of messages'
          : 'Invalid input: expected array, received undefined',
      ),
    };
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
    const m = readElement(body, elementSpan(array, k), Message, ['messages', k], WHAT);
    if (!m.ok) return m;
    messages[k] = toChatMessage(m.value);
    nonText[k] = hasNonText(m.value) ? 1 : 0;
  }
  const toolsAt = toolsMember(body, scanned, prior?.tools ?? null);
  let tools: WireCall<ChatState>['tools'];
  if (toolsAt.same) tools = { same: true };
  else if (!toolsAt.span) tools = { same: false, spec: undefined };
  else {
    const t = readElement(body, toolsAt.span, Tools, ['tools'], WHAT);
    if (!t.ok) return t;
    tools = { same: false, spec: t.value.map(toToolSpec) as ToolSpec[] };
  }
  const stream = f.stream === true;
  // Copied, so the request's body dies with its call; the tools' bytes only when they changed.
  const state: ChatState = {
    messages: keepArray(body, array, prior?.messages ?? null),
    tools: keptTools(body, toolsAt),
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
      headers: bearer,
      forward: (c) =>
        withChanges(
          body,
          scanned,
          c,
          f.max_completion_tokens != null ? 'max_completion_tokens' : 'max_tokens',
          f.seed !== undefined,
          stream && c.includeUsage
            ? [['stream_options', JSON.stringify({ ...(f.stream_options ?? {}), include_usage: true })]]
            : [],
        ),
      state,
      stateBytes: state.messages.bytes.length + (state.tools?.length ?? 0) + 9 * n,
    },
  };
}

class PlainReader implements AnswerReader {
  private readonly chunks: Buffer[] = [];

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
  }

  end(): ReturnType<AnswerReader['end']> {
    const body = readJson(this.chunks);
    if (!body.ok) return body;
    const answer = readCompletion(body.value);
    return answer ? { ok: true, answer } : { ok: false, error: 'upstream answered with JSON that is not a completion' };
  }

  clientBody() {
    return { contentType: 'application/json', pieces: this.chunks };
  }
}

/** Server-sent events, read as they arrive: each event kept as it came (to pass on), and the answer put together from them (chatSpelling.assemble). */
class StreamReader implements AnswerReader {
  private readonly events = new SseReader();
  private readonly assembler = chatSpelling.assemble();
  /** Which events are the usage chunk the gateway asked for. */
  private readonly usageOnly: boolean[] = [];

  constructor(private readonly clientWantsUsage: boolean) {}

  push(chunk: Buffer): void {
    this.events.push(chunk, (e) => this.take(e));
  }

  private take(e: SseBlock): void {
    const chunk = e.data;
    this.usageOnly.push(
      isObject(chunk) && Array.isArray(chunk.choices) && chunk.choices.length === 0 && chunk.usage != null,
    );
    this.assembler.add(e.event, chunk);
  }

  end(): ReturnType<AnswerReader['end']> {
    this.events.end((e) => this.take(e));
    return { ok: true, answer: this.assembler.end()! };
  }

  clientBody() {
    // The usage chunk was asked for by the gateway; the agent gets it only if it asked too.
    const kept = this.clientWantsUsage ? this.events.texts : this.events.texts.filter((_, i) => !this.usageOnly[i]);
    return { contentType: 'text/event-stream', pieces: [Buffer.from(kept.join(''))] };
  }
}

export const chatWire: WireAdapter<CompletionRequest, ChatState> = {
  ...chatSpelling,
  family: 'openai',
  parseBytes: parse,
  reader: (call) => (call.stream ? new StreamReader(call.clientWantsUsage) : new PlainReader()),
  recorded: (call, model, message, usage) => {
    const c = completion('chatcmpl-replay', model, 0, structuredClone(message), usage);
    if (!call.stream) return Buffer.from(JSON.stringify(c));
    return Buffer.from(
      [...streamChunks(c, true).map((e) => `data: ${JSON.stringify(e)}\n\n`), 'data: [DONE]\n\n'].join(''),
    );
  },
  upstreamErrorMessage: errorMessage,
};
