// How the sim plays the summarizer of a context strategy (role `summarize`): a paragraph of real
// text, its length drawn per summary, deterministic in the seed and the steps it folds.
import type { ChatRequest } from '../contracts/chat.ts';
import { draw } from './behaviour.ts';
import type { Dist } from '../contracts/dist.ts';
import type { Profile } from './profile.ts';
import { rng } from './rng.ts';
import type { SimAnswer } from './answer.ts';
import { stepOf } from './step.ts';
import { words } from './text.ts';

const SUMMARY_TOKENS: Dist = { mean: 200, sd: 25, min: 60 };

export function writeSummary(p: Profile, request: ChatRequest): SimAnswer {
  const last = stepOf(request.messages) - 1;
  const r = rng(request.seed ?? 0, 'summarize', last, request.messages.length);
  const latencyMs = Math.round(draw(r, p.latency_ms));
  return {
    message: { role: 'assistant', content: `Up to step ${last}: ${words(r, Math.round(draw(r, SUMMARY_TOKENS)))}` },
    latencyMs,
  };
}
