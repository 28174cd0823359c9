import type { ChatMessage } from '../contracts/chat.ts';

const STEP_MARK = /^(?:Thought|Answer) (\d+):/;

/** The sim numbers its own messages, so it knows its step from the conversation alone (any context window keeps the last one). */
export function stepOf(messages: ChatMessage[]): number {
  let assistants = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'assistant') continue;
    const mark = STEP_MARK.exec(m.content ?? '');
    if (mark) return Number(mark[1]) + 1;
    assistants++;
  }
  return assistants + 1;
}
