// A decision as the report lists it: one line a reader takes in at a glance, the whole text below it.
// The line is the decision's first sentence, cut at a clause when it runs longer than a line; the
// whole decision follows sentence by sentence (the rule, what to run next), folded until opened.

/** About what one line of the report's 15-px text holds at its width. */
export const LEAD_CHARS = 118;

/** The sentences of a decision: a full stop followed by a capital starts the next (`×2.5 (12.0 → 30.0)` does not). */
export const sentences = (text: string) => text.split(/(?<=\.)\s+(?=[A-Z])/);

/** The first sentence, or its first clauses ending in `…` when the sentence is longer than `max`. */
export function leadLine(text: string, max = LEAD_CHARS): string {
  const first = sentences(text)[0]!;
  if (first.length <= max) return first;
  // The last clause boundary that keeps the line within max (a dash, a semicolon, a comma).
  const cuts = [...first.slice(0, max).matchAll(/ — |; |, /g)].map((m) => m.index!);
  const at = cuts.length ? cuts[cuts.length - 1]! : first.lastIndexOf(' ', max);
  return `${first.slice(0, at > 0 ? at : max)} …`;
}
