// `--context` values: `full`, `window:K` (keep the last K exchanges) or `summarize:T` (fold older
// history into a summary whenever the prompt would pass T tokens). Parsed once, validated up front.
import { UsageError } from '../contracts/errors.ts';

export type ContextSpec = { kind: 'full' } | { kind: 'window'; exchanges: number } | { kind: 'summarize'; maxTokens: number };

/** Below this a summary plus the latest exchange could not fit, and every call would summarise. */
export const MIN_SUMMARIZE_TOKENS = 500;

export const CONTEXT_HELP = `full, window:K (system prompt + goal + the last K exchanges, K ≥ 1) or summarize:T (summarise older history when the prompt would pass T tokens, T ≥ ${MIN_SUMMARIZE_TOKENS})`;

export function parseContextSpec(text: string, flag = '--context'): ContextSpec {
  const bad = (why: string) => new UsageError(`${flag}: '${text}' ${why} (accepted: ${CONTEXT_HELP})`);
  if (text === 'full') return { kind: 'full' };
  const m = /^(window|summarize):(.*)$/.exec(text);
  if (!m) throw bad('is not a context strategy');
  const n = Number(m[2]);
  if (m[2]!.trim() === '' || !Number.isInteger(n)) throw bad('needs a whole number after the colon');
  if (m[1] === 'window') {
    if (n < 1) throw bad('keeps no exchange');
    return { kind: 'window', exchanges: n };
  }
  if (n < MIN_SUMMARIZE_TOKENS) throw bad(`is below the minimum of ${MIN_SUMMARIZE_TOKENS} tokens`);
  return { kind: 'summarize', maxTokens: n };
}

/** A comma-separated list of strategies, each validated; duplicates dropped, order kept. */
export function parseContextList(text: string, flag = '--context'): string[] {
  const out = text.split(',').map((s) => s.trim());
  for (const v of out) parseContextSpec(v, flag);
  return [...new Set(out)];
}
