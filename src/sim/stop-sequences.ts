import type { AssistantMessage } from '../contracts/chat.ts';

/** A provider stops writing where a stop sequence would begin: the text ends there (the sequence
 *  itself not included) and nothing after it is written, tool calls included. */
export function cutAtStop(message: AssistantMessage, stop: readonly string[] | undefined): AssistantMessage {
  const text = message.content ?? '';
  let at = -1;
  for (const s of stop ?? []) {
    const i = s ? text.indexOf(s) : -1;
    if (i >= 0 && (at < 0 || i < at)) at = i;
  }
  if (at < 0) return message;
  const { tool_calls: _dropped, ...rest } = message;
  return { ...rest, content: text.slice(0, at) };
}
