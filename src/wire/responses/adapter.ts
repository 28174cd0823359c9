// The Responses API adapter (POST /v1/responses): its JSON spelling (spelling.ts), and the request
// read from its bytes: `instructions`, `input` (a string, or items: messages, function calls and their
// outputs, references to earlier output items) and function `tools` become the conversation the meter
// counts; answers are read whole or from the stream's final event. `previous_response_id` continues
// a conversation the provider keeps and bills whole: the gateway keeps each response it relayed (its
// conversation and output items, in the same bounded store bench serve keeps its own in), so such a
// call is counted whole too; one that continues a response the gateway never saw is counted for
// what it sends, with its prompt unbounded (the provider's usage is what is billed).
import { Buffer } from 'node:buffer';
import { z } from 'zod';
import type { ChatMessage, ToolSpec } from '../../contracts/chat.ts';
import type { Answer, AnswerReader, SentOn, WireAdapter, WireCall } from '../adapter.ts';
import { errorMessage, wholeReader } from '../answer-bytes.ts';
import { bearer } from '../chat/adapter.ts';
import type { WireError } from '../error.ts';
import { itemsBytes, readItems, type AddItem, type ItemsState } from '../items.ts';
import { elementSpan, sameBytes, type ScannedArray } from '../json-body.ts';
import { invalid, keptTools, readElement, scanRequest, toolsMember, withChanges } from '../request-bytes.ts';
import { json, sseText } from '../sse.ts';
import { ResponseStore } from '../store.ts';
import {
  beyondText,
  functionTools,
  Item,
  resolved,
  responsesSpelling,
  ResponsesRequest,
  toMessages,
  type ResponsesCall,
} from './spelling.ts';

const WHAT = 'Responses API';
const Fields = ResponsesRequest.pick({
  model: true,
  stream: true,
  max_output_tokens: true,
  temperature: true,
  seed: true,
  previous_response_id: true,
  store: true,
  instructions: true,
});
const Tools = z.array(z.looseObject({ type: z.string() }));

export interface ResponsesState {
  /** The input items (none when `input` was a string); only for a request that continued no stored response. */
  items: ItemsState | null;
  instructions: { bytes: Buffer; message: ChatMessage } | null;
  tools: Buffer | null;
  /** The tools had some not of type function (web search…), whose tokens only the provider counts. */
  toolsBeyond: boolean;
}

interface Call extends WireCall<ResponsesState> {
  /** The answer as this request's upstream would spell it (--replay). */
  spell(answer: Answer): Buffer;
  /** Whether the provider keeps the answer (`store`, true unless the request says false), and the conversation it then keeps with it (the instructions are not carried over). */
  keep: boolean;
  conversation: ChatMessage[];
}

/** The Responses API; `store` keeps the answers it sends or relays (one per server: bench serve's, the gateway's). */
export function responsesWire(store = new ResponseStore()): WireAdapter<ResponsesCall, ResponsesState> {
  const spelling = responsesSpelling(store);

  /** An item (a reference resolved to the output item it names) as chat messages; true when it is beyond text, or a reference to nothing the gateway kept. */
  const add: AddItem<Item> = (item, out) => {
    const it = resolved(item, (id) => store.item(id));
    if (!it) return true;
    toMessages([it], () => undefined, out);
    return beyondText(it);
  };
  const readItem = (array: ScannedArray) => (body: Buffer, k: number) =>
    readElement(body, elementSpan(array, k), Item, ['input', k], WHAT);

  function parse(
    body: Buffer,
    prior: ResponsesState | null,
    sent?: SentOn,
  ): { ok: true; call: Call } | { ok: false; error: WireError } {
    const request = scanRequest(body, 'input', prior?.items?.array ?? null, Fields, WHAT);
    if (!request.ok) return request;
    const { scanned, fields: f } = request;
    let unbounded = scanned.members.has('conversation');
    // The stored conversation this request continues: counted whole, as the provider bills it.
    let context: ChatMessage[] = [];
    if (f.previous_response_id) {
      const before = store.previous(f.previous_response_id);
      if (before) context = before;
      else unbounded = true;
    }
    let items: ItemsState | null = null;
    let conversation: ChatMessage[];
    if (scanned.array) {
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
      items = context.length === 0 ? read.state : null;
      conversation = [...context, ...read.state.messages];
    } else {
      const span = scanned.members.get('input');
      const input = span
        ? readElement(body, span, z.string(), ['input'], WHAT)
        : {
            ok: false as const,
            error: invalid(['input'], 'Invalid input: expected string or array of items, received undefined'),
          };
      if (!input.ok) return input;
      conversation = [...context, { role: 'user', content: input.value }];
    }
    if (conversation.length === 0) return { ok: false, error: invalid(['input'], 'no input items.') };
    const instrSpan = scanned.members.get('instructions');
    let instructions: ResponsesState['instructions'] = null;
    if (f.instructions)
      instructions =
        instrSpan && prior?.instructions && sameBytes(body, instrSpan, prior.instructions.bytes)
          ? prior.instructions
          : {
              bytes: Buffer.from(body.subarray(instrSpan!.start, instrSpan!.end)),
              message: { role: 'system', content: f.instructions },
            };
    const toolsAt = toolsMember(body, scanned, prior?.tools ?? null);
    let tools: WireCall<ResponsesState>['tools'];
    let toolsBeyond = false;
    if (toolsAt.same) {
      tools = { same: true };
      toolsBeyond = prior!.toolsBeyond;
    } else if (!toolsAt.span) tools = { same: false, spec: undefined };
    else {
      const t = readElement(body, toolsAt.span, Tools, ['tools'], WHAT);
      if (!t.ok) return t;
      const { specs, other } = functionTools(t.value);
      tools = { same: false, spec: specs.length ? (specs as ToolSpec[]) : undefined };
      toolsBeyond = other !== null;
    }
    const state: ResponsesState = {
      items,
      instructions,
      tools: keptTools(body, toolsAt),
      toolsBeyond,
    };
    const messages = instructions ? [instructions.message, ...conversation] : conversation;
    // A WebSocket's frame is always streamed, and its answer kept on the connection whatever `store` says.
    const socket = sent?.websocket === true;
    const stream = socket || f.stream === true;
    const keep = socket || f.store !== false;
    const call: Call = {
      model: f.model,
      messages,
      tools,
      maxOutputTokens: f.max_output_tokens ?? null,
      stream,
      // Every Responses stream carries its usage (response.completed).
      clientWantsUsage: true,
      seed: f.seed ?? null,
      temperature: f.temperature ?? null,
      textOnly: !unbounded && !toolsBeyond,
      upstreamPath: '/responses',
      headers: bearer,
      forward: (c) => withChanges(body, scanned, c, 'max_output_tokens', f.seed !== undefined),
      state,
      stateBytes: itemsBytes(items) + (state.tools?.length ?? 0) + (instructions?.bytes.length ?? 0) * 2,
      spell: (a) => {
        const asSent = json(body.toString('utf8'));
        const parsed = ResponsesRequest.safeParse(asSent);
        const request: ResponsesCall = {
          body: parsed.success ? parsed.data : { model: f.model, input: '' },
          history: [],
        };
        return Buffer.from(stream ? sseText(spelling.events(a, request)) : JSON.stringify(spelling.render(a, request)));
      },
      keep,
      conversation,
    };
    return { ok: true, call };
  }

  /** Reads the answer, and keeps it (unless the request said store: false) for the requests that continue it. */
  function reader(call: WireCall<ResponsesState>): AnswerReader {
    const c = call as Call;
    return wholeReader(
      spelling,
      c.stream,
      { answer: 'a response', end: 'its final event (response.completed)' },
      (answer) => {
        if (c.keep && answer.id) store.keepResponse(answer.id, c.conversation, answer.message, answer.items ?? []);
      },
    );
  }

  return {
    ...spelling,
    family: 'openai',
    parseBytes: parse,
    reader,
    recorded: (call, model, message, usage) =>
      (call as Call).spell({
        uid: `replay${Date.now().toString(36)}`,
        model,
        created: Math.floor(Date.now() / 1000),
        message,
        usage,
        finishReason: message.tool_calls?.length ? 'tool_calls' : 'stop',
      }),
    upstreamErrorMessage: errorMessage,
  };
}
