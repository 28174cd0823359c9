// The upstream's usage is what a run is billed, so it is checked before it is believed: each count
// a non-negative integer up to MAX_TOKENS_PER_CALL (src/contracts/counts.ts; cache writes and reasoning too,
// each within the prompt or the output), the output within the answer's limit the request set, the prompt
// within reach of loopbench's own count of it. Pure: no I/O.
//   - missing, not an integer, negative, over the ceiling, or implausibly low: that count is loopbench's own;
//   - more than the request allowed: billed as reported (the provider will bill it), and the run's
//     further calls are refused: an upstream that over-reports, or ignores max_tokens, would
//     otherwise spend past the budget the brakes promise.
// Either way the record keeps both: what the provider sent and what loopbench counted.
import type { Usage } from '../contracts/chat.ts';
import { isTokenCount as isCount, MAX_TOKENS_PER_CALL } from '../contracts/counts.ts';
import type { ReportedUsage, UsageSource } from '../contracts/records.ts';
import type { SentUsage } from '../wire/adapter.ts';

/** Another tokenizer counts differently, never by this factor: a count under 1/USAGE_FACTOR of loopbench's is not believed, nor a prompt over USAGE_FACTOR × its count + PROMPT_SLACK (room for a provider's own preamble). */
export const USAGE_FACTOR = 4;
export const PROMPT_SLACK = 1000;

export interface Metered {
  usage: Usage;
  source: UsageSource;
  /** Set when the provider's usage was not taken as sent: what it sent, and what loopbench counted. */
  reported?: ReportedUsage | null;
  counted?: Usage;
  note?: string;
  /** The answer was billed more than its request allowed: why (the run is then stopped). */
  overReported?: string;
}

export interface UsageBounds {
  /** loopbench's count of the prompt (always known: the brakes need it). */
  promptTokens: number;
  /** The answer's limit the request was sent with. */
  maxOutputTokens: number;
  /** loopbench's count of the answer's output. */
  completionTokens: number;
  /** False when the conversation has images or files: their tokens cannot be counted here, so the prompt has no upper bound. */
  promptBounded: boolean;
}

const show = (v: unknown) => (v === undefined ? 'missing' : (JSON.stringify(v)?.slice(0, 40) ?? String(v)));
const int = (n: number) => n.toLocaleString('en-US');
const NOT_COUNT = `is not a non-negative integer up to ${int(MAX_TOKENS_PER_CALL)}`;

/** An optional part of the usage: 0 when not sent, null (and a problem said) when sent and not a count. */
function part(v: unknown, name: string, problems: string[]): number | null {
  if (v === undefined || v === null) return 0;
  if (isCount(v)) return v;
  problems.push(`${name} ${show(v)} ${NOT_COUNT}`);
  return null;
}

export function meterUsage(sent: SentUsage | null, b: UsageBounds): Metered {
  const counted: Usage = { prompt_tokens: b.promptTokens, completion_tokens: b.completionTokens, cached_tokens: 0 };
  if (!sent)
    return {
      usage: counted,
      source: 'counted',
      reported: null,
      counted,
      note: "the upstream reported no usage: metered with loopbench's own count",
    };
  const problems: string[] = [];
  const over: string[] = [];
  const reported: ReportedUsage = {
    prompt_tokens: isCount(sent.prompt) ? sent.prompt : null,
    completion_tokens: isCount(sent.completion) ? sent.completion : null,
    cached_tokens: isCount(sent.cached) ? sent.cached : null,
  };
  let prompt = reported.prompt_tokens;
  let completion = reported.completion_tokens;
  let cached = sent.cached === undefined || sent.cached === null ? 0 : reported.cached_tokens;
  if (prompt === null) problems.push(`prompt_tokens ${show(sent.prompt)} ${NOT_COUNT}`);
  if (completion === null) problems.push(`completion_tokens ${show(sent.completion)} ${NOT_COUNT}`);
  if (cached === null) problems.push(`cached_tokens ${show(sent.cached)} ${NOT_COUNT}`);
  if (prompt !== null && prompt * USAGE_FACTOR < b.promptTokens) {
    problems.push(
      `prompt_tokens ${int(prompt)} is under 1/${USAGE_FACTOR} of loopbench's count (${int(b.promptTokens)})`,
    );
    prompt = null;
  }
  if (completion !== null && completion * USAGE_FACTOR < b.completionTokens) {
    problems.push(
      `completion_tokens ${int(completion)} is under 1/${USAGE_FACTOR} of loopbench's count of the answer (${int(b.completionTokens)})`,
    );
    completion = null;
  }
  if (completion !== null && completion > b.maxOutputTokens)
    over.push(`completion_tokens ${int(completion)} is more than the ${int(b.maxOutputTokens)} the request allowed`);
  if (prompt !== null && b.promptBounded && prompt > USAGE_FACTOR * b.promptTokens + PROMPT_SLACK)
    over.push(
      `prompt_tokens ${int(prompt)} is more than ${USAGE_FACTOR}× loopbench's count (${int(b.promptTokens)}) + ${int(PROMPT_SLACK)}`,
    );
  const usage: Usage = {
    prompt_tokens: prompt ?? b.promptTokens,
    completion_tokens: completion ?? b.completionTokens,
    cached_tokens: 0,
  };
  if (cached !== null && cached > usage.prompt_tokens) {
    problems.push(`cached_tokens ${int(cached)} is more than the prompt's ${int(usage.prompt_tokens)}`);
    cached = null;
  }
  usage.cached_tokens = cached ?? 0;
  // Cache writes are input, apart from the cache reads; reasoning is output. A part that cannot be so is left out (billed at the plain rate).
  let write = part(sent.cacheWrite, 'cache_write_tokens', problems);
  if (write !== null && usage.cached_tokens + write > usage.prompt_tokens) {
    problems.push(
      `cache_write_tokens ${int(write)} with cached_tokens ${int(usage.cached_tokens)} is more than the prompt's ${int(usage.prompt_tokens)}`,
    );
    write = null;
  }
  let write1h = part(sent.cacheWrite1h, 'cache_write_1h_tokens', problems);
  if (write1h !== null && write1h > (write ?? 0)) {
    problems.push(`cache_write_1h_tokens ${int(write1h)} is more than the cache writes' ${int(write ?? 0)}`);
    write1h = null;
  }
  let reasoning = part(sent.reasoning, 'reasoning_tokens', problems);
  if (reasoning !== null && reasoning > usage.completion_tokens) {
    problems.push(`reasoning_tokens ${int(reasoning)} is more than the output's ${int(usage.completion_tokens)}`);
    reasoning = null;
  }
  if (write) usage.cache_write_tokens = write;
  if (write1h) usage.cache_write_1h_tokens = write1h;
  if (reasoning) usage.reasoning_tokens = reasoning;
  if (sent.cacheWrite != null) reported.cache_write_tokens = isCount(sent.cacheWrite) ? sent.cacheWrite : null;
  if (sent.reasoning != null) reported.reasoning_tokens = isCount(sent.reasoning) ? sent.reasoning : null;
  if (!problems.length && !over.length) return { usage, source: 'provider' };
  const said = [...problems, ...over].join('; ');
  const what = over.length
    ? "billed as reported, and the run's further calls are refused"
    : "metered with loopbench's own count where the upstream's was not usable";
  return {
    usage,
    source: problems.length ? 'counted' : 'provider',
    reported,
    counted,
    note: `${said}: ${what}`,
    ...(over.length ? { overReported: over.join('; ') } : {}),
  };
}
