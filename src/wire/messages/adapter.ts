// The Anthropic Messages adapter (POST /v1/messages): its JSON spelling (spelling.ts), and the request
// read from its bytes: `system`, `messages` (text, tool_use and tool_result blocks) and client `tools`
// become the conversation the meter counts; answers are read whole or from the stream's events. The
// upstream gets the key as Anthropic's API takes it (x-api-key) with the agent's anthropic-version
// and anthropic-beta. A Thread (the SDK's tool runner: `thread` continue, only the new turn sent)
// continues a conversation the provider keeps and bills whole: the gateway keeps each Thread answer
// it relayed (in the same store, by the same rules, as bench serve keeps its own), so such a call is
// counted whole too.
import { Buffer } from 'node:buffer';
import type { ChatMessage, ToolSpec } from '../../contracts/chat.ts';
import type { AnswerReader, WireAdapter, WireCall } from '../adapter.ts';
import { errorMessage, wholeReader } from '../answer-bytes.ts';
import type { WireError } from '../error.ts';
import { itemsBytes, readItems, type AddItem, type ItemsState } from '../items.ts';
import { elementSpan, sameBytes, type ScannedArray } from '../json-body.ts';
import {
  badRequest,
  invalid,
  keptTools,
  readElement,
  scanRequest,
  toolsMember,
  withChanges,
} from '../request-bytes.ts';
import { sseText } from '../sse.ts';
import { ResponseStore } from '../store.ts';
import {
  beyondText,
  clientTools,
  Message,
  messagesSpelling,
  MessagesRequest,
  systemText,
  toChat,
  type MessagesCall,
} from './spelling.ts';

const WHAT = 'Anthropic Messages';
const Fields = MessagesRequest.pick({
  model: true,
  max_tokens: true,
  stream: true,
  temperature: true,
  seed: true,
  thread: true,
  system: true,
});
const Tools = MessagesRequest.shape.tools.unwrap();
/** The API version Anthropic's SDKs send, for an agent that sends none. */
export const ANTHROPIC_VERSION = '2023-06-01';

export interface MessagesState {
  /** The messages' items; only for a request that continued no Thread. */
  items: ItemsState | null;
  system: { bytes: Buffer; message: ChatMessage } | null;
  tools: Buffer | null;
  toolSpecs: ToolSpec[] | undefined;
  /** The tools had server tools (web search…), whose tokens only the provider counts. */
  toolsBeyond: boolean;
}

interface Call extends WireCall<MessagesState> {
  /** The Thread turn this request continues, and whether it asks the provider to keep its answer (`thread` given). */
  continues: string | null;
  keep: boolean;
  conversation: ChatMessage[];
  toolSpecs: ToolSpec[] | undefined;
}

const header = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(',') : v);

/** Anthropic Messages; `store` keeps the Thread answers it sends or relays (one per server: bench serve's, the gateway's). */
export function messagesWire(store = new ResponseStore()): WireAdapter<MessagesCall, MessagesState> {
  const spelling = messagesSpelling(store);
  const add: AddItem<Message> = (m, out) => {
    toChat(m, out);
    return beyondText(m);
  };
  const readItem = (array: ScannedArray) => (body: Buffer, k: number) =>
    readElement(body, elementSpan(array, k), Message, ['messages', k], WHAT);

  function parse(
    body: Buffer,
    prior: MessagesState | null,
    sent: Parameters<WireAdapter['parseBytes']>[2],
  ): { ok: true; call: Call } | { ok: false; error: WireError } {
    const request = scanRequest(body, 'messages', prior?.items?.array ?? null, Fields, WHAT);
    if (!request.ok) return request;
    const { scanned, fields: f } = request;
    if (!scanned.array)
      return { ok: false, error: invalid(['messages'], 'Invalid input: expected array, received undefined') };
    if (scanned.array.bounds.length === 0)
      return { ok: false, error: invalid(['messages'], 'at least one message is required') };
    const continues = f.thread?.type === 'continue' ? f.thread.previous_message_id : null;
    const text = systemText(f.system);
    const before = continues === null ? undefined : store.thread(continues, text);
    let unbounded = continues !== null && !before;
    const context = before ?? [];
    const read = readItems(
      body,
      scanned.array,
      context.length === 0 ? (prior?.items ?? null) : null,
      context,
      readItem(scanned.array),
      add,
    );
    if (!read.ok) return read;
    unbounded ||= read.beyondText;
    const systemSpan = scanned.members.get('system');
    let system: MessagesState['system'] = null;
    if (text)
      system =
        systemSpan && prior?.system && sameBytes(body, systemSpan, prior.system.bytes)
          ? prior.system
          : {
              bytes: Buffer.from(body.subarray(systemSpan!.start, systemSpan!.end)),
              message: { role: 'system', content: text },
            };
    const toolsAt = toolsMember(body, scanned, prior?.tools ?? null);
    let tools: WireCall<MessagesState>['tools'];
    let toolSpecs: ToolSpec[] | undefined;
    let toolsBeyond = false;
    if (toolsAt.same) {
      tools = { same: true };
      toolSpecs = prior!.toolSpecs;
      toolsBeyond = prior!.toolsBeyond;
    } else if (!toolsAt.span) {
      // A Thread's later turns may leave out its tools: they are the stored ones.
      toolSpecs = continues !== null ? store.tools(continues) : undefined;
      tools = { same: false, spec: toolSpecs?.length ? toolSpecs : undefined };
    } else {
      const t = readElement(body, toolsAt.span, Tools, ['tools'], WHAT);
      if (!t.ok) return t;
      const client = clientTools(t.value);
      if ('error' in client) return { ok: false, error: badRequest(client.error) };
      toolSpecs = client.specs;
      tools = { same: false, spec: client.specs.length ? client.specs : undefined };
      toolsBeyond = client.other !== null;
    }
    const items = context.length === 0 ? read.state : null;
    const state: MessagesState = {
      items,
      system,
      tools: keptTools(body, toolsAt),
      toolSpecs,
      toolsBeyond,
    };
    const conversation = [...(system ? [system.message] : []), ...context, ...read.state.messages];
    const version = header(sent.headers['anthropic-version']) ?? ANTHROPIC_VERSION;
    const beta = header(sent.headers['anthropic-beta']);
    const search = new URL(sent.url ?? '/', 'http://x').search;
    const stream = f.stream === true;
    const call: Call = {
      model: f.model,
      messages: conversation,
      tools,
      maxOutputTokens: f.max_tokens,
      stream,
      // Every Messages stream carries its usage (message_start, message_delta).
      clientWantsUsage: true,
      seed: f.seed ?? null,
      temperature: f.temperature ?? null,
      textOnly: !unbounded && !toolsBeyond,
      upstreamPath: `/messages${search}`,
      headers: (key) => ({
        ...(key ? { 'x-api-key': key } : {}),
        'anthropic-version': version,
        ...(beta ? { 'anthropic-beta': beta } : {}),
      }),
      forward: (c) => withChanges(body, scanned, c, 'max_tokens', f.seed !== undefined),
      state,
      stateBytes: itemsBytes(items) + (state.tools?.length ?? 0) + (system?.bytes.length ?? 0) * 2,
      continues,
      keep: f.thread != null,
      conversation,
      toolSpecs,
    };
    return { ok: true, call };
  }

  /** Reads the answer, and keeps a Thread's for the turn that continues it. */
  function reader(call: WireCall<MessagesState>): AnswerReader {
    const c = call as Call;
    return wholeReader(
      spelling,
      c.stream,
      { answer: 'a message', end: 'message_stop (cut short, or ended by an error event)' },
      (answer) => {
        if (c.keep && answer.id) store.keepThread(c.continues, answer.id, c.conversation, answer.message, c.toolSpecs);
      },
    );
  }

  return {
    ...spelling,
    family: 'anthropic',
    parseBytes: parse,
    reader,
    recorded: (call, model, message, usage) => {
      const a = {
        uid: `replay${Date.now().toString(36)}`,
        model,
        created: Math.floor(Date.now() / 1000),
        message,
        usage,
        finishReason: message.tool_calls?.length ? ('tool_calls' as const) : ('stop' as const),
      };
      return Buffer.from(
        call.stream
          ? sseText(spelling.events(a, undefined as never))
          : JSON.stringify(spelling.render(a, undefined as never)),
      );
    },
    upstreamErrorMessage: errorMessage,
  };
}
