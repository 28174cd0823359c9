// A simulated model: writes real text and real JSON tool calls, deterministic per seed, and bills
// its usage with the real tokenizer and chat-format overheads, as a provider would.
import {
  ModelError,
  roleOf,
  type CallContext,
  type ChatModel,
  type ChatRequest,
  type ChatResult,
  type Role,
} from '../contracts/chat.ts';
import type { TokenCounter } from '../meter/tokens.ts';
import { PrefixCache } from '../meter/prefix-cache.ts';
import { anthropicCacheUsage } from '../meter/prompt-cache.ts';
import type { CacheBilling } from '../contracts/sim-server.ts';
import { writeAct } from './act.ts';
import { capOutput } from './max-tokens.ts';
import { writeCritic } from './critic.ts';
import type { Profile } from './profile.ts';
import type { SimAnswer } from './answer.ts';
import { cutAtStop, firstStop } from './stop-sequences.ts';
import { writeCreate, writeExecute, writePrioritize, writeSummarize } from './taskqueue.ts';
import { writeSummary } from './summarizer.ts';

export interface SimOptions {
  promptCache: boolean;
  /** Whose prompt caching the usage follows (default OpenAI's: reads only); Anthropic's also writes, billed apart. */
  cacheBilling?: CacheBilling;
  /** A prompt cache shared beyond this model (`bench serve` keeps one for all requests, as a provider does). */
  cache?: PrefixCache;
}

export class SimModel implements ChatModel {
  readonly simulated = true;
  private readonly cache: PrefixCache;

  constructor(
    readonly id: string,
    private readonly profile: Profile,
    private readonly counter: TokenCounter,
    private readonly options: SimOptions,
  ) {
    this.cache = options.cache ?? new PrefixCache();
  }

  /** The assistant message this profile writes for the request: pure in (profile, seed, messages). */
  respond(request: ChatRequest): SimAnswer {
    const role = roleOf(request.messages);
    const writer = ROLE_WRITERS[role];
    if (!writer) throw new ModelError(`simulated profile '${this.profile.id}' has no behaviour for role '${role}'`);
    return writer(this.profile, request);
  }

  async complete(request: ChatRequest, _context: CallContext): Promise<ChatResult> {
    const answer = this.respond(request);
    // Like a provider: the answer ends at a stop sequence, and at max_tokens (a cut answer bills all max_tokens).
    const stopped = cutAtStop(answer.message, request.stop);
    const whole = this.counter.produced(stopped);
    const { message, finishReason } = capOutput(stopped, whole, request.max_tokens);
    const produced = message === stopped ? whole : this.counter.produced(message);
    const promptTokens = this.counter.prompt(request.messages, request.tools);
    const { cached, written } = this.cacheUsage(request, promptTokens);
    const stopSequence =
      stopped === answer.message || finishReason !== 'stop'
        ? undefined
        : firstStop(answer.message.content ?? '', request.stop)?.sequence;
    return {
      message,
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: finishReason === 'length' ? request.max_tokens! : produced,
        cached_tokens: cached,
        ...(written ? { cache_write_tokens: written } : {}),
      },
      finishReason,
      ...(stopSequence !== undefined ? { stopSequence } : {}),
      latencyMs: answer.latencyMs,
      retries: 0,
    };
  }

  private cacheUsage(request: ChatRequest, promptTokens: number): { cached: number; written: number } {
    if (!this.options.promptCache) return { cached: 0, written: 0 };
    if (this.options.cacheBilling === 'anthropic')
      return anthropicCacheUsage(this.cache.sharedTokens(request.messages, request.tools, this.counter), promptTokens);
    return { cached: this.cache.cachedTokens(request.messages, request.tools, this.counter), written: 0 };
  }
}

/** How the sim plays each role; a role without a writer is an error, not a silent default. */
const ROLE_WRITERS: Partial<Record<Role, (p: Profile, request: ChatRequest) => SimAnswer>> = {
  act: writeAct,
  execute: writeExecute,
  create: writeCreate,
  prioritize: writePrioritize,
  reflect: writeCritic,
  // One role, two callers: the task queue's history compression (its profiles have a taskqueue
  // section) and the ReAct context strategy summarize:T.
  summarize: (p, request) => (p.taskqueue ? writeSummarize(p, request) : writeSummary(p, request)),
};
