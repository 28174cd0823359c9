// Real text for simulated models, of a chosen length in tokens, without tokenizing while writing:
// every word in the vocabulary is one o200k_base token when preceded by a space, and the
// pre-tokenizer never merges across a space, so n words (plus one token per full stop) are
// n tokens. The meter still counts the result with the real tokenizer.
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import type { Rng } from './rng.ts';

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

/** Words that are exactly one token after a space. */
export const VOCABULARY: readonly string[] = [...new Set(CANDIDATES)].filter((w) => w && encode(` ${w}`).length === 1);

/**
 * About `tokens` tokens of sentence-like text (each word one token, each sentence's full stop one more).
 * Built as parts joined once: `+=` would leave a rope of hundreds of pieces per message that lives as
 * long as the conversation and costs the garbage collector more than writing the text.
 */
export function words(r: Rng, tokens: number): string {
  const parts: string[] = [];
  let n = 0;
  let sentence = 0;
  while (n < tokens) {
    let word = VOCABULARY[Math.floor(r() * VOCABULARY.length)]!;
    n++;
    sentence++;
    if (sentence >= 8 + Math.floor(r() * 7) && n < tokens) {
      word += '.';
      n++;
      sentence = 0;
    }
    parts.push(word);
  }
  return parts.join(' ');
}
