import { patternMatches } from './pattern.ts';
import type { Check } from './schema.ts';

/** Digits grouped with commas or spaces (338,350) count as the plain number. */
const normalise = (s: string) => s.replace(/(\d)[,\s_](?=\d{3}\b)/g, '$1');

/** Whether a final answer passes the scenario's check; null when there is nothing to check. */
export function checkAnswer(check: Check | undefined, answer: string | null): boolean | null {
  if (!check) return null;
  if (answer === null) return false;
  if ('expected' in check)
    return new RegExp(`(^|\\D)${check.expected.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\D|$)`).test(normalise(answer));
  return patternMatches(check.pattern, answer);
}
