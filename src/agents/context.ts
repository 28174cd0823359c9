// Context strategies: what part of a growing conversation each call sends.
//   full          — everything (cost grows quadratically with the steps);
//   window:K      — the system prompt, the goal and the last K exchanges;
//   summarize:T   — when the prompt would pass T tokens, older exchanges are folded into a summary
//                   made by a metered `summarize` call; the summary then stands in for them.
// An exchange starts at an assistant message and holds the tool results that answer it (and any
// feedback after them), so cutting at exchange starts never separates a tool call from its result.
import type { ChatMessage, ToolSpec } from '../contracts/chat.ts';
import type { ModelCaller } from './caller.ts';
import { parseContextSpec, type ContextStrategyName } from './context-spec.ts';
import { PLAIN_HOOKS, type ViewOutcome } from './hooks.ts';
import type { AgentLoop, AgentRun } from './agent.ts';

export interface ContextStrategy {
  view(messages: ChatMessage[], tools?: ToolSpec[]): Promise<ViewOutcome>;
  extra(): Record<string, unknown>;
}

/** Leading system message(s) and the first user message (the goal): always sent. */
export function headLength(messages: readonly ChatMessage[]): number {
  let i = 0;
  while (i < messages.length && messages[i]!.role === 'system') i++;
  if (i < messages.length && messages[i]!.role === 'user') i++;
  return i;
}

/** Indices where exchanges start, from `from` on. A tool message never starts one. */
export function exchangeStarts(messages: readonly ChatMessage[], from: number): number[] {
  const starts: number[] = [];
  for (let i = from; i < messages.length; i++) {
    const role = messages[i]!.role;
    if (role === 'assistant' || (i === from && role !== 'tool')) starts.push(i);
  }
  return starts;
}

/** The head and the last `k` exchanges. */
export function windowView(messages: ChatMessage[], k: number): ChatMessage[] {
  const head = headLength(messages);
  const starts = exchangeStarts(messages, head);
  if (starts.length <= k) return messages;
  return [...messages.slice(0, head), ...messages.slice(starts[starts.length - k])];
}

const SUMMARIZER_SYSTEM: ChatMessage = {
  role: 'system',
  name: 'summarize',
  content:
    "You compress an agent's working history. Keep every fact, number and source it found, what it has already tried, and what is still open. Drop reasoning that led nowhere. Write plain prose, no tool calls.",
};
const SUMMARIZE_REQUEST: ChatMessage = {
  role: 'user',
  content: 'Summarise the history above (after the goal) in a short paragraph the agent can continue from.',
};

class Summarizer implements ContextStrategy {
  private summary: ChatMessage | null = null;
  /** messages[head, folded) are covered by the summary. */
  private folded = 0;
  private summaries = 0;
  private failures = 0;

  constructor(
    private readonly caller: ModelCaller,
    private readonly maxTokens: number,
  ) {}

  private compose(messages: ChatMessage[], head: number): ChatMessage[] {
    if (!this.summary) return messages;
    return [...messages.slice(0, head), this.summary, ...messages.slice(Math.max(head, this.folded))];
  }

  async view(messages: ChatMessage[], tools?: ToolSpec[]): Promise<ViewOutcome> {
    const head = headLength(messages);
    const current = this.compose(messages, head);
    if (this.caller.promptTokens(current, tools) <= this.maxTokens) return { ok: true, messages: current };
    const from = Math.max(head, this.folded);
    const cut = this.cutPoint(messages, from);
    if (cut <= from) return { ok: true, messages: current }; // only the latest exchange is left: nothing to fold
    const request = [
      SUMMARIZER_SYSTEM,
      ...messages.slice(0, head).filter((m) => m.role !== 'system'),
      ...(this.summary ? [this.summary] : []),
      ...messages.slice(from, cut),
      SUMMARIZE_REQUEST,
    ];
    const out = await this.caller.call('summarize', request, tools);
    if (!out.ok) return out;
    const text = out.result.message.content?.trim();
    if (!text) {
      this.failures++; // keep the history whole rather than lose it to an empty summary
      return { ok: true, messages: current };
    }
    this.summary = { role: 'user', name: 'summary', content: `Summary of the earlier steps: ${text}` };
    this.folded = cut;
    this.summaries++;
    return { ok: true, messages: this.compose(messages, head) };
  }

  /** Keep the longest run of latest exchanges that fits in half the budget (at least the latest one). */
  private cutPoint(messages: ChatMessage[], from: number): number {
    const starts = exchangeStarts(messages, from);
    if (starts.length < 2) return from;
    let kept = 0;
    let end = messages.length;
    for (let i = starts.length - 1; i >= 1; i--) {
      kept += this.caller.promptTokens(messages.slice(starts[i], end));
      if (kept > this.maxTokens / 2 && i < starts.length - 1) return starts[i + 1]!;
      end = starts[i]!;
    }
    return starts[1]!;
  }

  extra(): Record<string, unknown> {
    return { summaries: this.summaries, summary_failures: this.failures };
  }
}

/** What each strategy of the table (context-spec.ts) does; a new strategy is a row there and an entry here. */
const CREATE: Record<
  ContextStrategyName,
  (
    param: number | null,
    caller: ModelCaller,
  ) => Omit<ContextStrategy, 'extra'> & { extra?: () => Record<string, unknown> }
> = {
  full: () => ({ view: async (messages) => ({ ok: true, messages }) }),
  window: (k) => ({ view: async (messages) => ({ ok: true, messages: windowView(messages, k!) }) }),
  summarize: (t, caller) => {
    const summarizer = new Summarizer(caller, t!);
    return { view: (m, tools) => summarizer.view(m, tools), extra: () => summarizer.extra() };
  },
};

/** The strategy a run's `context` setting names. */
export function createContext(spec: string, caller: ModelCaller): ContextStrategy {
  const s = parseContextSpec(spec);
  const made = CREATE[s.kind](s.param, caller);
  return { view: made.view, extra: () => ({ strategy: spec, ...made.extra?.() }) };
}

/** Runs `loop` with the run's context strategy as its `view` hook; the strategy's figures go to extra.context. */
export function withContext<R extends AgentRun>(loop: AgentLoop<R>): AgentLoop<R> {
  return async (run) => {
    const context = createContext(run.caller.settings.context, run.caller);
    const base = run.hooks ?? PLAIN_HOOKS;
    const outcome = await loop({ ...run, hooks: { ...base, view: (m, t) => context.view(m, t) } });
    return { ...outcome, extra: { ...outcome.extra, context: context.extra() } };
  };
}
