// What a server keeps of earlier answers, in memory, for protocols with server-held state (bench
// serve answering them, the gateway relaying them: the same continuation rules for both): each
// stored answer's conversation (the Responses API's `previous_response_id`, Anthropic's Threads:
// a provider bills the whole context, so it is counted whole), the tools it was offered (a Thread's
// later turns may leave them out), and each output item by id (`item_reference` inputs, which the AI
// SDK sends when `store` is on). Bounded: the oldest answers go first, as a provider's retention would drop them.
import type { AssistantMessage, ChatMessage, ToolSpec } from '../contracts/chat.ts';

interface Kept {
  messages: ChatMessage[];
  itemIds: string[];
  tools?: ToolSpec[];
  /** A Thread's turn can be continued once. */
  continued: boolean;
  chars: number;
}

/** Responses kept before the oldest is dropped: far more than one agent's run holds. */
export const STORE_LIMIT = 5000;
/**
 * Text kept (characters of content and arguments) before the oldest is dropped. An agent that sends
 * its whole conversation each call has every stored answer hold a copy of it, so a long sweep's store
 * grows with steps²: this bounds its memory (~64 MB of text) whatever the run lengths.
 */
export const STORE_CHARS = 64 * 1024 * 1024;

const charsOf = (messages: readonly ChatMessage[]) =>
  messages.reduce(
    (n, m) =>
      n +
      (m.content?.length ?? 0) +
      (m.role === 'assistant' ? (m.tool_calls ?? []).reduce((k, c) => k + c.function.arguments.length, 0) : 0),
    0,
  );

export class ResponseStore {
  private readonly conversations = new Map<string, Kept>();
  private readonly items = new Map<string, Record<string, unknown>>();

  private chars = 0;

  constructor(
    private readonly limit = STORE_LIMIT,
    private readonly maxChars = STORE_CHARS,
  ) {}

  /** The messages of a stored response (its input history and its answer, without its instructions). */
  conversation(id: string): ChatMessage[] | undefined {
    return this.conversations.get(id)?.messages;
  }

  /** The tools a stored answer was offered, when kept. */
  tools(id: string): ToolSpec[] | undefined {
    return this.conversations.get(id)?.tools;
  }

  /** Whether a stored answer was continued already (a Thread's turn is continued once). */
  continued(id: string): boolean {
    return this.conversations.get(id)?.continued === true;
  }

  markContinued(id: string): void {
    const kept = this.conversations.get(id);
    if (kept) kept.continued = true;
  }

  /**
   * The Responses API's `previous_response_id`: the conversation a stored response continues, for a
   * request to extend (undefined when it is not kept). The stored messages themselves (so a counter
   * that has seen them counts them again for nothing), but the last one copied when it is the
   * assistant's, which the request's items may extend.
   */
  previous(id: string): ChatMessage[] | undefined {
    const before = this.conversation(id);
    if (!before) return undefined;
    const out = [...before];
    const last = out.at(-1);
    if (last?.role === 'assistant')
      out[out.length - 1] = { ...last, ...(last.tool_calls ? { tool_calls: [...last.tool_calls] } : {}) };
    return out;
  }

  /** Keeps a response's answer (its conversation and output items) for the requests that continue it. */
  keepResponse(
    id: string,
    conversation: readonly ChatMessage[],
    answer: AssistantMessage,
    items: ReadonlyArray<Record<string, unknown>>,
  ): void {
    this.save(id, [...conversation, answer], items);
  }

  /**
   * Anthropic's Threads: the conversation a turn continues (undefined when it is not kept). A turn may
   * leave out its system prompt (the stored one stays) or give a new one (`system`: the stored one goes).
   */
  thread(id: string, system: string | undefined): ChatMessage[] | undefined {
    return this.conversation(id)?.filter((m) => system === undefined || m.role !== 'system');
  }

  /** Keeps a Thread's answer for the turn that continues it; the turn it continued (`continues`) is spent. */
  keepThread(
    continues: string | null,
    id: string,
    conversation: readonly ChatMessage[],
    answer: AssistantMessage,
    tools: ToolSpec[] | undefined,
  ): void {
    if (continues !== null) this.markContinued(continues);
    this.save(id, [...conversation, answer], [], tools);
  }

  /** An output item of a stored response, as it was sent. */
  item(id: string): Record<string, unknown> | undefined {
    return this.items.get(id);
  }

  save(
    id: string,
    conversation: ChatMessage[],
    items: ReadonlyArray<Record<string, unknown>> = [],
    tools?: ToolSpec[],
  ): void {
    const itemIds: string[] = [];
    for (const item of items) {
      if (typeof item.id !== 'string') continue;
      this.items.set(item.id, item);
      itemIds.push(item.id);
    }
    const chars = charsOf(conversation);
    this.conversations.set(id, {
      messages: conversation,
      itemIds,
      continued: false,
      chars,
      ...(tools ? { tools } : {}),
    });
    this.chars += chars;
    while (this.conversations.size > this.limit || (this.chars > this.maxChars && this.conversations.size > 1)) {
      const [oldest, kept] = this.conversations.entries().next().value!;
      this.conversations.delete(oldest);
      this.chars -= kept.chars;
      for (const k of kept.itemIds) this.items.delete(k);
    }
  }

  get size(): number {
    return this.conversations.size;
  }
}
