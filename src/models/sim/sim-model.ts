// A simulated model: writes real text and real JSON tool calls, deterministic per seed, and bills
// its usage with the real tokenizer and chat-format overheads, as a provider would.
import type { AssistantMessage, CallContext, ChatMessage, ChatModel, ChatRequest, ChatResult } from '../chat.ts';
import type { TokenCounter } from '../../meter/tokens.ts';
import { PrefixCache } from '../../meter/prefix-cache.ts';
import { decide, draw, fillArgs } from './behaviour.ts';
import type { Profile } from './profile.ts';
import { hash32, rng } from './rng.ts';
import { words } from './text.ts';

const STEP_MARK = /^(?:Thought|Answer) (\d+):/;

/** The sim numbers its own messages, so it knows its step from the conversation alone (any context window keeps the last one). */
export function stepOf(messages: ChatMessage[]): number {
  let assistants = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'assistant') continue;
    const mark = STEP_MARK.exec(m.content ?? '');
    if (mark) return Number(mark[1]) + 1;
    assistants++;
  }
  return assistants + 1;
}

function lastObservation(messages: ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'tool') {
      const lines = m.content.trim().split('\n');
      return lines[lines.length - 1] ?? '';
    }
  }
  return '';
}

export interface SimOptions {
  promptCache: boolean;
}

export class SimModel implements ChatModel {
  readonly simulated = true;
  private readonly cache = new PrefixCache();

  constructor(
    readonly id: string,
    private readonly profile: Profile,
    private readonly counter: TokenCounter,
    private readonly options: SimOptions,
  ) {}

  /** The assistant message this profile writes for the request: pure in (profile, seed, messages). */
  respond(request: ChatRequest): { message: AssistantMessage; latencyMs: number } {
    const p = this.profile;
    const seed = request.seed ?? 0;
    const step = stepOf(request.messages);
    const r = rng(seed, step, 'act');
    const latencyMs = Math.round(draw(r, p.latency_ms));
    const decision = decide(p, step, seed);
    if (decision.kind === 'answer') {
      const answer = p.answer.replaceAll('{observation}', lastObservation(request.messages));
      return { message: { role: 'assistant', content: `Answer ${step}: ${answer}` }, latencyMs };
    }
    const t = decision.template;
    const thought = `Thought ${step}: ${t.thought ? `${t.thought} ` : ''}${words(r, Math.round(draw(r, p.thought_tokens)))}`;
    let args = JSON.stringify(fillArgs(t.args, decision.n, step));
    if (r() < p.malformed_args_rate) args = args.slice(0, -1);
    const id = `call_${hash32(`${seed}:${step}`).toString(36)}`;
    return {
      message: { role: 'assistant', content: thought, tool_calls: [{ id, type: 'function', function: { name: t.tool, arguments: args } }] },
      latencyMs,
    };
  }

  async complete(request: ChatRequest, _context: CallContext): Promise<ChatResult> {
    const { message, latencyMs } = this.respond(request);
    const promptTokens = this.counter.prompt(request.messages, request.tools);
    const cached = this.options.promptCache ? this.cache.cachedTokens(request.messages, request.tools, this.counter) : 0;
    return {
      message,
      usage: { prompt_tokens: promptTokens, completion_tokens: this.counter.produced(message), cached_tokens: cached },
      latencyMs,
      retries: 0,
    };
  }
}
