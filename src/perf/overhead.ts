// Target 1: metering overhead. A simulated sweep should cost little more than tokenizing its new
// text once: the sweep's total time is compared with the time to tokenize every message it
// created, once each, with the same tokenizer, in the same process.
import type { AssistantMessage, ChatMessage, ToolSpec } from '../contracts/chat.ts';
import {
  answerInputTokens,
  completionTokens,
  messageTokensUncached,
  TokenCounter,
  toolsTokensUncached,
} from '../meter/tokens.ts';
import { cpuMsSince, timeSweep, type SweepFlags, type SweepTiming } from './sweep.ts';
import { median } from '../stats/quantile.ts';

type Tokenized =
  { kind: 'message'; m: ChatMessage } | { kind: 'answer'; m: AssistantMessage } | { kind: 'tools'; tools: ToolSpec[] };

/** A TokenCounter that keeps every object it tokenizes, so the same text can be tokenized again alone. */
export class RecordingCounter extends TokenCounter {
  readonly tokenized: Tokenized[] = [];

  private record<T>(item: Tokenized, count: () => T): T {
    const before = this.tokenizations;
    const n = count();
    if (this.tokenizations > before) this.tokenized.push(item);
    return n;
  }

  override message(m: ChatMessage): number {
    return this.record({ kind: 'message', m }, () => super.message(m));
  }

  override produced(m: AssistantMessage): number {
    return this.record({ kind: 'answer', m }, () => super.produced(m));
  }

  override tools(tools: ToolSpec[] | undefined): number {
    return tools && tools.length ? this.record({ kind: 'tools', tools }, () => super.tools(tools)) : 0;
  }
}

/**
 * A meter that does not tokenize (characters ÷ 4): a sweep timed with it is the harness alone
 * (simulated model, tools, brakes, records), to split a sweep's overhead into the harness's own
 * work and what the two cost together (garbage collection, caches). Only ever used here.
 */
class UntokenizedCounter extends TokenCounter {
  private static estimate(m: ChatMessage): number {
    return Math.ceil((m.content ?? '').length / 4);
  }

  override message(m: ChatMessage): number {
    return UntokenizedCounter.estimate(m);
  }

  override produced(m: AssistantMessage): number {
    return UntokenizedCounter.estimate(m);
  }

  override tools(): number {
    return 0;
  }
}

/** Tokenizes each item once, with no caching machinery: the floor a metered sweep can reach. */
export function tokenizeOnce(items: readonly Tokenized[]): { cpuMs: number; ms: number; tokens: number } {
  const start = performance.now();
  const cpu = process.cpuUsage();
  let tokens = 0;
  for (const it of items) {
    if (it.kind === 'message') tokens += messageTokensUncached(it.m);
    else if (it.kind === 'answer') tokens += answerInputTokens(it.m, completionTokens(it.m));
    else tokens += toolsTokensUncached(it.tools);
  }
  return { cpuMs: cpuMsSince(cpu), ms: performance.now() - start, tokens };
}

export interface OverheadResult {
  /** Median sweep timing (CPU and wall). */
  sweep: SweepTiming;
  /** Median time to tokenize the sweep's new text once. */
  tokenize: { cpuMs: number; ms: number };
  /** Distinct messages and tool lists the sweep tokenized (each once). */
  tokenized: number;
  tokens: number;
  /** Sweep ÷ tokenizing on CPU time (steadier than wall time on a shared machine): median of the rounds' ratios. */
  ratio: number;
  /** The same on wall-clock time. */
  wallRatio: number;
  /** Median CPU per step of the same sweep with a meter that does not tokenize: the harness alone. */
  harnessUsPerStep: number;
}

/**
 * A recording sweep first (it also warms the tokenizer's caches), then `rounds` pairs: the sweep,
 * then tokenizing its messages once (and, apart, the sweep with a meter that does not tokenize). The sweep is deterministic, so every round creates the same
 * text. The ratio is the median of the pairs' ratios: a pair runs back to back, so a slow spell of
 * a shared machine slows both halves of it, where comparing separate medians would not cancel it.
 */
export async function measureOverhead(args: SweepFlags, rounds = 5): Promise<OverheadResult> {
  const recorder = new RecordingCounter();
  await timeSweep(args, recorder);
  const sweeps: SweepTiming[] = [];
  const tokenize: Array<{ cpuMs: number; ms: number }> = [];
  let tokens = 0;
  const harness: number[] = [];
  for (let i = 0; i < rounds; i++) {
    sweeps.push(await timeSweep(args, new TokenCounter()));
    const t = tokenizeOnce(recorder.tokenized);
    tokenize.push(t);
    tokens = t.tokens;
    const alone = await timeSweep(args, new UntokenizedCounter());
    harness.push((alone.cpuMs * 1000) / Math.max(1, alone.steps));
  }
  const sweep = { ...sweeps[0]!, cpuMs: median(sweeps.map((s) => s.cpuMs)), ms: median(sweeps.map((s) => s.ms)) };
  const tok = { cpuMs: median(tokenize.map((t) => t.cpuMs)), ms: median(tokenize.map((t) => t.ms)) };
  const ratio = median(sweeps.map((s, i) => s.cpuMs / tokenize[i]!.cpuMs));
  const wallRatio = median(sweeps.map((s, i) => s.ms / tokenize[i]!.ms));
  return {
    sweep,
    tokenize: tok,
    tokenized: recorder.tokenized.length,
    tokens,
    ratio,
    wallRatio,
    harnessUsPerStep: median(harness),
  };
}
