/** Splits text into pieces of a few words, as a token stream would arrive (every API's stream sends them). */
export function pieces(s: string, words = 4): string[] {
  const parts = s.match(/\S+\s*|\s+/g) ?? [];
  const out: string[] = [];
  for (let i = 0; i < parts.length; i += words) out.push(parts.slice(i, i + words).join(''));
  return out;
}
