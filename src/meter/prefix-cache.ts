// A provider-side prompt cache, as simulated models (and `bench serve`) bill it: the longest
// prefix of this request (tools, then whole messages) that an earlier request also sent.
// Prefixes are remembered as chained per-message hashes, each message hashed once.
import type { ChatMessage, ToolSpec } from '../contracts/chat.ts';
import { hash32 } from '../contracts/hash.ts';
import { billableCachedTokens } from './prompt-cache.ts';
import type { TokenCounter } from './tokens.ts';

const LIMIT = 200_000;

/** The hash of a prefix extended by one message: arithmetic, no string built per message per call. */
function chainHash(chain: number, message: number): number {
  return (Math.imul(chain ^ message, 0x01000193) + Math.imul(message, 0x5bd1e995)) >>> 0;
}

export class PrefixCache {
  private readonly seen = new Set<number>();
  private readonly hashes = new WeakMap<object, number>();

  private hashOf(o: object): number {
    let h = this.hashes.get(o);
    if (h === undefined) {
      h = hash32(JSON.stringify(o));
      this.hashes.set(o, h);
    }
    return h;
  }

  /** Billable cached tokens for this request (OpenAI's rule); remembers its prefixes for the next ones. */
  cachedTokens(messages: ChatMessage[], tools: ToolSpec[] | undefined, counter: TokenCounter): number {
    return billableCachedTokens(this.sharedTokens(messages, tools, counter));
  }

  /** Tokens of the longest prefix (tools, then whole messages) an earlier request sent; remembers this one's. */
  sharedTokens(messages: ChatMessage[], tools: ToolSpec[] | undefined, counter: TokenCounter): number {
    let chain = tools && tools.length ? this.hashOf(tools) : 0;
    let shared = 0;
    let matching = true;
    let prefix = counter.tools(tools);
    if (this.seen.size > LIMIT) this.seen.clear();
    for (const m of messages) {
      chain = chainHash(chain, this.hashOf(m));
      prefix += counter.message(m);
      if (matching && this.seen.has(chain)) shared = prefix;
      else matching = false;
      this.seen.add(chain);
    }
    return shared;
  }
}
