// Plain string similarity for de-duplication: the Sørensen–Dice coefficient over character bigrams
// of the normalised text (case, punctuation and spacing ignored). 1 is identical, 0 shares nothing.

const normalise = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

function bigrams(s: string): Map<string, number> {
  const out = new Map<string, number>();
  for (let i = 0; i + 1 < s.length; i++) {
    const g = s.slice(i, i + 2);
    out.set(g, (out.get(g) ?? 0) + 1);
  }
  return out;
}

export function similarity(a: string, b: string): number {
  const x = normalise(a);
  const y = normalise(b);
  if (x === y) return 1;
  if (x.length < 2 || y.length < 2) return 0;
  const bx = bigrams(x);
  const by = bigrams(y);
  let shared = 0;
  for (const [g, n] of bx) shared += Math.min(n, by.get(g) ?? 0);
  return (2 * shared) / (x.length - 1 + (y.length - 1));
}

/** The most similar candidate and its score; null when there are none. */
export function closest(text: string, candidates: readonly string[]): { twin: string; score: number } | null {
  let best: { twin: string; score: number } | null = null;
  for (const c of candidates) {
    const score = similarity(text, c);
    if (!best || score > best.score) best = { twin: c, score };
  }
  return best;
}
