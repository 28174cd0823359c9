import type { AssistantMessage } from '../contracts/chat.ts';

/** The stop sequence that ends `text` first, and where; null when none occurs. */
export function firstStop(text: string, stop: readonly string[] | undefined): { at: number; sequence: string } | null {
  let found: { at: number; sequence: string } | null = null;
  for (const s of stop ?? []) {
    const i = s ? text.indexOf(s) : -1;
    if (i >= 0 && (!found || i < found.at)) found = { at: i, sequence: s };
  }
  return found;
}

/** A provider stops writing where a stop sequence would begin: the text ends there (the sequence
 *  itself not included) and nothing after it is written, tool calls included. */
export function cutAtStop(message: AssistantMessage, stop: readonly string[] | undefined): AssistantMessage {
  const hit = firstStop(message.content ?? '', stop);
  if (!hit) return message;
  const { tool_calls: _dropped, ...rest } = message;
  return { ...rest, content: (message.content ?? '').slice(0, hit.at) };
}
