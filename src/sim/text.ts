// Real text for simulated models, of a chosen length in tokens, without tokenizing while writing:
// every word in the vocabulary is one o200k_base token when preceded by a space, and the
// pre-tokenizer never merges across a space, so n words (plus one token per full stop) are
// n tokens. The meter still counts the result with the real tokenizer.
import { countText } from '../meter/tokens.ts';
import { rng, type Rng } from './rng.ts';

const CANDIDATES = `the agent loop step cost token model tool call result search page source check
complete verify answer budget limit time report data file sort type date project size value list
queue task goal plan next first last more need still found read write note update review result
summary context history prompt message output input price each every new old same other this that
with from into over under about after before again while when then also only just very much many
few some all any most least better good best small large long short high low fast slow clear open
close start stop run done keep move make take give find look show use work help try test compare
count add remove change order group split merge copy save load send get set build fix improve
refine format detail section part item entry record line table chart figure number total sum square
python code print range function loop round draft final version check review sources article
document folder files download reorganize category structure criteria pass`.split(/\s+/);

/** Words that are exactly one token after a space (checked when the pool is first written). */
const vocabulary = (): string[] => [...new Set(CANDIDATES)].filter((w) => w && countText(` ${w}`) === 1);

/** Sentences of 8–14 vocabulary words and a full stop, written once per process from a fixed seed. */
interface Sentence {
  /** The words, space-separated, ending in '.'. */
  text: string;
  /** ends[k] = where the text of the first k + 1 words ends (for a last, cut sentence). */
  ends: number[];
}

const POOL_SIZE = 4096;
let pool: Sentence[] | undefined;

function sentencePool(): Sentence[] {
  if (pool) return pool;
  const r = rng('sim-text-sentences');
  const vocab = vocabulary();
  pool = [];
  for (let i = 0; i < POOL_SIZE; i++) {
    const n = 8 + Math.floor(r() * 7);
    const picked: string[] = [];
    const ends: number[] = [];
    let length = -1;
    for (let k = 0; k < n; k++) {
      const word = vocab[Math.floor(r() * vocab.length)]!;
      picked.push(word);
      ends.push((length += 1 + word.length));
    }
    // Joined, not concatenated: a flat string copies fast into every text that uses it.
    pool.push({ text: `${picked.join(' ')}.`, ends });
  }
  return pool;
}

/**
 * Exactly `tokens` tokens of sentence-like text (each word one token, each full stop one more; the
 * first word, with no space before it, may take two). Whole sentences drawn from a pool, one draw
 * per sentence rather than per word: a sweep writes millions of words, and writing them must cost
 * far less than the tokenizer counting them.
 */
export function words(r: Rng, tokens: number): string {
  const sentences = sentencePool();
  const parts: string[] = [];
  let left = tokens;
  while (left > 0) {
    const s = sentences[Math.floor(r() * sentences.length)]!;
    const size = s.ends.length + 1;
    if (left >= size) {
      parts.push(s.text);
      left -= size;
    } else {
      parts.push(s.text.slice(0, s.ends[left - 1]));
      left = 0;
    }
  }
  return parts.join(' ');
}
