import { decodeText, encodeText } from './tokens.ts';

/** Cut text to at most `max` tokens (o200k_base); says how long it was. */
export function truncateTokens(text: string, max: number): { text: string; tokens: number; truncated: boolean } {
  const ids = encodeText(text);
  if (ids.length <= max) return { text, tokens: ids.length, truncated: false };
  return { text: decodeText(ids.slice(0, max)), tokens: ids.length, truncated: true };
}
