// How long an answer the gateway lets a call have. The agent's own limit (max_tokens,
// max_output_tokens, or none) goes upstream as it sent it — it is part of what the agent does —
// unless a budget (--max-cost, --max-tokens) cannot afford the call's worst case: then the limit is
// lowered (or set) to what the budget leaves, and the call's step record says so. The brakes refuse
// the call only when the budget cannot afford even the smaller of that worst case and
// --max-output-tokens, where the built-in loops' brakes stop too. Pure: no I/O.
import type { Price } from '../contracts/settings.ts';
import type { Limits } from '../contracts/limits.ts';
import { callCost } from '../meter/pricing.ts';

/**
 * The worst case of a call that sets no limit, for a model whose max output the pricing table does
 * not give: the largest max output of current models (OpenAI's gpt-5 family writes up to 128,000).
 */
export const UNKNOWN_MAX_OUTPUT_TOKENS = 128_000;

export interface AnswerLimit {
  /** The answer's limit the brakes project (the call's worst case). */
  projected: number;
  /** Set when the gateway changes the request: the limit it sends, lowered from the agent's (or set where it sent none). */
  lowered?: { asked: number | null; sent: number };
}

/** What the run has taken so far, calls in flight counted at their worst case. */
export interface Taken {
  costUsd: number;
  tokens: number;
}

/** The most output tokens the run's budgets leave for a call with this prompt (Infinity: no budget bounds it). */
export function answerRoom(price: Price, limits: Limits, taken: Taken, inputTokens: number): number {
  let room = Infinity;
  if (limits.max_cost_usd !== null) {
    const left = limits.max_cost_usd - taken.costUsd;
    const prompt = callCost(price, inputTokens, 0, 0);
    const perToken = callCost(price, inputTokens, 1, 0) - prompt;
    if (perToken > 0) {
      let n = Math.max(0, Math.floor((left - prompt) / perToken));
      // Floating point may round the quotient up by one: the brake's own projection decides.
      while (n > 0 && taken.costUsd + callCost(price, inputTokens, n, 0) > limits.max_cost_usd) n--;
      room = n;
    }
  }
  if (limits.max_tokens !== null) room = Math.min(room, limits.max_tokens - taken.tokens - inputTokens);
  return Math.max(0, room);
}

/**
 * The limit a call goes with. `asked`: the request's own (null: none); `floor`: --max-output-tokens,
 * the smallest answer a budget lowers a call to before its brake refuses the call.
 */
export function answerLimit(asked: number | null, price: Price, room: number, floor: number): AnswerLimit {
  const worst = asked ?? price.max_output_tokens ?? UNKNOWN_MAX_OUTPUT_TOKENS;
  if (worst <= room) return { projected: worst };
  const least = Math.min(worst, floor);
  // Not even the least answer fits: projected at it, the budget's brake refuses the call.
  if (room < least) return { projected: least };
  return { projected: room, lowered: { asked, sent: room } };
}
