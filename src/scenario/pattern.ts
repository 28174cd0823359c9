// A scenario's `check.pattern` is user input matched against model output of any length: it runs
// on RE2 (re2js), whose matching time is linear in the answer, so no pattern can stall a sweep
// (JavaScript's backtracking RegExp takes exponential time on nested quantifiers like (a+)+$).
// RE2 has no backreferences or lookaround; such patterns are refused when the scenario loads.
import { RE2JS } from 're2js';

const compiled = new Map<string, RE2JS>();

/** The pattern compiled for RE2, or an error message saying why it cannot be run. */
export function compilePattern(pattern: string): RE2JS | string {
  const hit = compiled.get(pattern);
  if (hit) return hit;
  try {
    const re = RE2JS.compile(pattern);
    compiled.set(pattern, re);
    return re;
  } catch (e) {
    const why = (e as Error).message.replace(/^error parsing regexp: /, '');
    return `not a regular expression RE2 can run in linear time (${why}; backreferences and lookaround are not supported)`;
  }
}

/** Whether `pattern` occurs anywhere in `text`, as RegExp.test does. */
export function patternMatches(pattern: string, text: string): boolean {
  const re = compilePattern(pattern);
  // Validated at load (scenario schema), so an error here is a programming error, not user input.
  if (typeof re === 'string') throw new Error(`check.pattern: ${re}`);
  return re.matcher(text).find();
}
