// Token counting with a real tokenizer (o200k_base, as gpt-4o and gpt-4o-mini bill: gpt-tokenizer's
// ranks and split pattern, counted by bpe.ts against one shared table), plus the chat-format
// overheads providers add: 3 tokens per message, 3 to prime the reply, and the tool definitions
// counted by the rule fitted to the API's measured prompts (tool-tokens.ts).
//
// Counting is incremental: each message object is tokenized once (WeakMap), so metering a run
// costs O(new text), not O(steps²). `bench serve` sees fresh objects per request, so it also
// keys by content (bounded Map).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { AssistantMessage, ChatMessage, ToolSpec } from '../contracts/chat.ts';
import { ranksFile } from '../contracts/paths.ts';
import { countTokens, decodeTokens, encodeTokens } from './bpe.ts';
import { packRanks, unpack, type RankTable } from './rank-table.ts';
import { toolDefinitionTokens } from './tool-tokens.ts';

const require = createRequire(import.meta.url);
let shared: Uint8Array | undefined;
let table: RankTable | undefined;

/**
 * o200k_base's rank table in shared memory, loaded on first use (commands that only read results
 * never need it): the table scripts/build.mjs packs from gpt-tokenizer's own ranks, next to the
 * bundle; without it (a checkout not yet built), packed here from the package. One table serves
 * every thread: a sweep passes it to its workers (useSharedRanks), which then load nothing.
 */
export function sharedRanks(): Uint8Array {
  if (!shared) {
    const load = (packed: Uint8Array) => {
      const bytes = new Uint8Array(new SharedArrayBuffer(packed.length));
      bytes.set(packed);
      useSharedRanks(bytes);
    };
    try {
      load(fs.readFileSync(ranksFile(require('gpt-tokenizer/package.json').version)));
    } catch {
      load(packRanks((require('gpt-tokenizer/bpeRanks/o200k_base') as { default: string[] }).default));
    }
  }
  return shared!;
}

/** Counts against a table another thread loaded (sharedRanks there), without loading one here. */
export function useSharedRanks(bytes: Uint8Array): void {
  table = unpack(bytes);
  shared = bytes;
}

/** The table to count against: unpacked once per thread (sharedRanks sets it when it loads). */
function ranks(): RankTable {
  if (!table) sharedRanks();
  return table!;
}

/** o200k_base token ids of a text (special tokens in it are ordinary text). */
export const encodeText = (text: string): number[] => encodeTokens(ranks(), text);
/** The text of o200k_base token ids (a last character cut short is left out). */
export const decodeText = (ids: readonly number[]): string => decodeTokens(ranks(), ids);

export const TOKENS_PER_MESSAGE = 3;
export const REPLY_PRIMING = 3;
/** Per tool call inside an assistant message: the call wrapper around name and arguments. */
export const TOKENS_PER_TOOL_CALL = 3;

export function countText(text: string): number {
  return text.length === 0 ? 0 : countTokens(ranks(), text);
}

/** Tokens a message costs when it is sent as input; `count` tokenizes one text (default: here and now). */
export function messageTokensUncached(m: ChatMessage, count: (text: string) => number = countText): number {
  let n = TOKENS_PER_MESSAGE + count(m.role) + count(m.content ?? '');
  if ('name' in m && m.name) n += 1 + count(m.name);
  if (m.role === 'assistant' && m.tool_calls) {
    for (const c of m.tool_calls) n += TOKENS_PER_TOOL_CALL + count(c.function.name) + count(c.function.arguments);
  }
  return n;
}

/** Every text of a message that messageTokensUncached tokenizes. */
export function messageTexts(m: ChatMessage): string[] {
  const texts = [m.role, m.content ?? ''];
  if ('name' in m && m.name) texts.push(m.name);
  if (m.role === 'assistant' && m.tool_calls)
    for (const c of m.tool_calls) texts.push(c.function.name, c.function.arguments);
  return texts;
}

/** Tokens the model is billed for producing this message. */
export function completionTokens(m: AssistantMessage): number {
  let n = countText(m.content ?? '');
  for (const c of m.tool_calls ?? [])
    n += TOKENS_PER_TOOL_CALL + countText(c.function.name) + countText(c.function.arguments);
  return n;
}

/** Input tokens of an answer when it is sent back, given its completion tokens (adds the message wrapper). */
export function answerInputTokens(m: AssistantMessage, completion: number): number {
  return completion + TOKENS_PER_MESSAGE + countText(m.role) + (m.name ? 1 + countText(m.name) : 0);
}

/** Tokens the tool definitions of a request are billed (src/meter/tool-tokens.ts has the rule). */
export function toolsTokensUncached(tools: ToolSpec[] | undefined): number {
  return tools ? toolDefinitionTokens(tools, countText) : 0;
}

const CONTENT_CACHE_LIMIT = 50_000;

/** A conversation array as last counted: its message objects and the running token sums (sums[i] = first i messages). */
interface Tally {
  seen: ChatMessage[];
  sums: number[];
}

export class TokenCounter {
  private readonly byObject = new WeakMap<object, number>();
  private readonly tallies = new WeakMap<ChatMessage[], Tally>();
  private readonly byContent = new Map<string, number>();
  /** Tokenizer calls made (for the perf report: each message should be tokenized once). */
  tokenizations = 0;

  constructor(private readonly keyByContent = false) {
    // Whoever meters will tokenize: load the table now, not in a first run's time or a first
    // request's latency (`bench serve`).
    ranks();
  }

  message(m: ChatMessage): number {
    const hit = this.byObject.get(m);
    if (hit !== undefined) return hit;
    let key: string | undefined;
    if (this.keyByContent) {
      key = JSON.stringify(m);
      const c = this.byContent.get(key);
      if (c !== undefined) {
        this.byObject.set(m, c);
        return c;
      }
    }
    const n = messageTokensUncached(m);
    this.tokenizations++;
    this.byObject.set(m, n);
    if (key !== undefined) {
      if (this.byContent.size >= CONTENT_CACHE_LIMIT) this.byContent.clear();
      this.byContent.set(key, n);
    }
    return n;
  }

  /** A message's input tokens counted elsewhere (`bench serve` counts large requests off the main thread). */
  remember(m: ChatMessage, tokens: number): void {
    this.byObject.set(m, tokens);
  }

  /** Completion tokens of an answer; also remembers what it will cost when sent back as input. */
  produced(m: AssistantMessage): number {
    const n = completionTokens(m);
    this.tokenizations++;
    this.byObject.set(m, answerInputTokens(m, n));
    return n;
  }

  tools(tools: ToolSpec[] | undefined): number {
    if (!tools || tools.length === 0) return 0;
    const hit = this.byObject.get(tools);
    if (hit !== undefined) return hit;
    const n = toolsTokensUncached(tools);
    this.tokenizations++;
    this.byObject.set(tools, n);
    return n;
  }

  /**
   * Input tokens of a whole request: tools, every message, reply priming. An agent sends the same
   * growing array call after call, so the sum over the prefix it already counted is reused as long
   * as that prefix holds the same message objects (checked by identity, one compare per message):
   * each call costs its new messages, not a map lookup per message of the whole history.
   */
  prompt(messages: ChatMessage[], tools?: ToolSpec[]): number {
    let t = this.tallies.get(messages);
    if (!t) this.tallies.set(messages, (t = { seen: [], sums: [0] }));
    let i = 0;
    const same = Math.min(t.seen.length, messages.length);
    while (i < same && t.seen[i] === messages[i]) i++;
    t.seen.length = i;
    t.sums.length = i + 1;
    for (; i < messages.length; i++) {
      const m = messages[i]!;
      t.seen.push(m);
      t.sums.push(t.sums[i]! + this.message(m));
    }
    return this.tools(tools) + REPLY_PRIMING + t.sums[messages.length]!;
  }
}
