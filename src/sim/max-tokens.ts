// How a provider honours max_tokens: the answer stops after that many output tokens. The text comes
// first, then each tool call; a cut inside a call leaves it with truncated (invalid JSON) arguments,
// and a cut before a call's arguments begin leaves no call at all. Billed: exactly max_tokens.
import type { AssistantMessage, FinishReason, ToolCall } from '../contracts/chat.ts';
import { countText, decodeText, encodeText, TOKENS_PER_TOOL_CALL } from '../meter/tokens.ts';

export interface CappedAnswer {
  message: AssistantMessage;
  finishReason: FinishReason;
}

/** At most `max` tokens of `text`, counted as the meter counts them (re-checked, since a decoded prefix may re-tokenize differently). */
function cutText(text: string, max: number): string {
  if (max <= 0) return '';
  const ids = encodeText(text);
  for (let k = Math.min(max, ids.length); k > 0; k--) {
    const cut = decodeText(ids.slice(0, k));
    if (countText(cut) <= max) return cut;
  }
  return '';
}

const finished = (m: AssistantMessage): FinishReason => (m.tool_calls?.length ? 'tool_calls' : 'stop');

/** The answer as a provider would return it under `max_tokens` (none: unlimited); `tokens` is its whole length. */
export function capOutput(message: AssistantMessage, tokens: number, maxTokens: number | undefined): CappedAnswer {
  if (maxTokens === undefined || tokens <= maxTokens) return { message, finishReason: finished(message) };
  const text = message.content ?? '';
  const textTokens = countText(text);
  if (textTokens >= maxTokens)
    return { message: { role: 'assistant', content: cutText(text, maxTokens) }, finishReason: 'length' };
  let left = maxTokens - textTokens;
  const calls: ToolCall[] = [];
  for (const c of message.tool_calls ?? []) {
    const head = TOKENS_PER_TOOL_CALL + countText(c.function.name);
    const whole = head + countText(c.function.arguments);
    if (whole <= left) {
      calls.push(c);
      left -= whole;
      continue;
    }
    // Cut inside this call: its arguments stop mid-JSON; a cut before they start leaves no call.
    if (left > head)
      calls.push({ ...c, function: { ...c.function, arguments: cutText(c.function.arguments, left - head) } });
    break;
  }
  const cut: AssistantMessage = { role: 'assistant', content: message.content };
  if (calls.length) cut.tool_calls = calls;
  return { message: cut, finishReason: 'length' };
}
