// What the gateway remembers of each run's last request so the next one costs only what it adds: the
// adapter's record of where its messages were (to recognise them by their bytes), each message's
// token count, the tools' count, and the last answer's (an agent sends it back as its next
// message). Memory is bounded by open runs, not their history: one request per run, and at most
// MAX_BYTES for all runs together (least recently used forgotten first; a forgotten run's next
// request is counted whole, once).
import type { AssistantMessage, ChatMessage, ToolSpec } from '../contracts/chat.ts';
import { answerInputTokens, REPLY_PRIMING, type TokenCounter } from '../meter/tokens.ts';
import type { WireCall } from '../wire/adapter.ts';

/** Far above one run's conversation; bounds the memory of thousands of runs. */
export const MAX_BYTES = 256 * 1024 * 1024;

export interface Remembered<S = unknown> {
  /** The route of the adapter that read it: its state means nothing to another. */
  adapter: string;
  state: S;
  bytes: number;
  counts: number[];
  tools: ToolSpec[] | undefined;
  toolsTokens: number;
  /** The conversation itself, kept only when a transcript or cassette needs it. */
  messages: ChatMessage[] | null;
  /** The last answer and what it costs as input, when it is sent back unchanged. */
  answer: { message: AssistantMessage; inputTokens: number } | null;
}

export interface Tally<S> {
  promptTokens: number;
  /** The conversation, when kept (see Remembered.messages). */
  messages: ChatMessage[] | null;
  tools: ToolSpec[] | undefined;
  remember: Remembered<S>;
}

const sameCalls = (a: AssistantMessage, b: AssistantMessage) => {
  const x = a.tool_calls ?? [];
  const y = b.tool_calls ?? [];
  return (
    x.length === y.length &&
    x.every((c, i) => c.function.name === y[i]!.function.name && c.function.arguments === y[i]!.function.arguments)
  );
};

/** The answer sent back as it came: its input tokens are known from counting it as output. */
const isAnswer = (m: ChatMessage, answer: Remembered['answer']) =>
  answer !== null &&
  m.role === 'assistant' &&
  (m.content ?? '') === (answer.message.content ?? '') &&
  (m.name ?? '') === (answer.message.name ?? '') &&
  sameCalls(m, answer.message);

/**
 * The request's input tokens: messages the previous request had at the same place are not counted
 * again, nor is the previous answer, nor tools that did not change.
 */
export function tally<S>(
  call: WireCall<S>,
  prior: Remembered<S> | null,
  counter: TokenCounter,
  keepMessages: boolean,
  adapter: string,
): Tally<S> {
  const n = call.messages.length;
  const counts = new Array<number>(n);
  const messages = keepMessages ? new Array<ChatMessage>(n) : null;
  let sum = 0;
  for (let k = 0; k < n; k++) {
    const m = call.messages[k];
    if (m === null || m === undefined) {
      counts[k] = prior!.counts[k]!;
      if (messages) messages[k] = prior!.messages![k]!;
    } else {
      if (isAnswer(m, prior?.answer ?? null)) {
        counts[k] = prior!.answer!.inputTokens;
        // An adapter that hands back the same message objects call after call (items.ts) finds it counted.
        counter.remember(m, counts[k]!);
      } else counts[k] = counter.message(m);
      if (messages) messages[k] = m;
    }
    sum += counts[k]!;
  }
  const tools = call.tools.same ? prior!.tools : call.tools.spec;
  const toolsTokens = call.tools.same ? prior!.toolsTokens : counter.tools(tools);
  return {
    promptTokens: sum + toolsTokens + REPLY_PRIMING,
    messages,
    tools,
    remember: {
      adapter,
      state: call.state,
      bytes: call.stateBytes,
      counts,
      tools,
      toolsTokens,
      messages,
      answer: null,
    },
  };
}

/** Counts an answer's output tokens and remembers what it will cost when sent back. */
export function countAnswer(r: Remembered, counter: TokenCounter, message: AssistantMessage): number {
  const n = counter.produced(message);
  r.answer = { message, inputTokens: answerInputTokens(message, n) };
  return n;
}

/** Each run's last request, least recently used first, within MAX_BYTES. */
export class Conversations<K> {
  private readonly byRun = new Map<K, Remembered>();
  private bytes = 0;

  constructor(private readonly maxBytes = MAX_BYTES) {}

  get(run: K): Remembered | null {
    return this.byRun.get(run) ?? null;
  }

  set(run: K, r: Remembered): void {
    this.delete(run);
    this.byRun.set(run, r);
    this.bytes += r.bytes;
    for (const [oldest, o] of this.byRun) {
      if (this.bytes <= this.maxBytes || oldest === run) break;
      this.byRun.delete(oldest);
      this.bytes -= o.bytes;
    }
  }

  delete(run: K): void {
    const r = this.byRun.get(run);
    if (!r) return;
    this.byRun.delete(run);
    this.bytes -= r.bytes;
  }

  get size(): number {
    return this.byRun.size;
  }
}
