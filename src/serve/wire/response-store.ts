// What the Responses API keeps of earlier answers, in memory: each stored response's conversation
// (for `previous_response_id`: the provider bills the whole context, so it is counted whole) and each
// output item by id (for `item_reference` inputs, which the AI SDK sends when `store` is on). Bounded:
// the oldest responses go first, as a provider's retention would drop them.
import type { ChatMessage } from '../../contracts/chat.ts';

/** Responses kept before the oldest is dropped: far more than one agent's run holds. */
export const STORE_LIMIT = 5000;

export class ResponseStore {
  private readonly conversations = new Map<string, { messages: ChatMessage[]; itemIds: string[] }>();
  private readonly items = new Map<string, Record<string, unknown>>();

  constructor(private readonly limit = STORE_LIMIT) {}

  /** The messages of a stored response (its input history and its answer, without its instructions). */
  conversation(id: string): ChatMessage[] | undefined {
    return this.conversations.get(id)?.messages;
  }

  /** An output item of a stored response, as it was sent. */
  item(id: string): Record<string, unknown> | undefined {
    return this.items.get(id);
  }

  save(id: string, conversation: ChatMessage[], items: ReadonlyArray<Record<string, unknown>>): void {
    const itemIds: string[] = [];
    for (const item of items) {
      if (typeof item.id !== 'string') continue;
      this.items.set(item.id, item);
      itemIds.push(item.id);
    }
    this.conversations.set(id, { messages: conversation, itemIds });
    while (this.conversations.size > this.limit) {
      const [oldest, kept] = this.conversations.entries().next().value!;
      this.conversations.delete(oldest);
      for (const k of kept.itemIds) this.items.delete(k);
    }
  }

  get size(): number {
    return this.conversations.size;
  }
}
