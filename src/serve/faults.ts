// Provider faults `bench serve` can inject, so an agent's (or loopbench's own) handling of a bad
// provider can be tested without one. Each is what real providers do now and then.
import { UsageError } from '../contracts/errors.ts';
import type { Answer } from '../wire/adapter.ts';

export const FAULTS = {
  '429': 'HTTP 429 rate limit with a retry-after header',
  '500': 'HTTP 500 server error',
  reset: 'the connection is closed without an answer',
  timeout: 'no answer at all (the client times out)',
  empty: 'HTTP 200 with an empty choices list (Responses: no output items; Messages: no content blocks)',
  'no-usage': 'HTTP 200 without the usage field',
  'bad-args': 'HTTP 200 whose tool call arguments are not valid JSON',
  overlong: 'HTTP 200 that ignores max_tokens (the whole answer, billed in full)',
} as const;
export type Fault = keyof typeof FAULTS;

export const DEFAULT_FAULTS: Fault[] = ['429', '500'];

export function parseFaults(text: string): Fault[] {
  const out = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (out.length === 0) throw new UsageError(`--faults: no fault given (accepted: ${Object.keys(FAULTS).join(', ')})`);
  for (const f of out)
    if (!(f in FAULTS))
      throw new UsageError(`--faults: unknown fault '${f}' (accepted: ${Object.keys(FAULTS).join(', ')})`);
  return [...new Set(out)] as Fault[];
}

/** With probability `rate`, one of the faults (uniformly); otherwise null. */
export function pickFault(rate: number, faults: readonly Fault[], random: () => number): Fault | null {
  if (rate <= 0 || faults.length === 0 || random() >= rate) return null;
  return faults[Math.min(faults.length - 1, Math.floor(random() * faults.length))]!;
}

/** The faults that still answer 200: they spoil the answer itself, in whichever protocol it goes out. */
export function spoil(a: Answer, fault: Fault): Answer {
  if (fault === 'empty') return { ...a, message: null };
  if (fault === 'no-usage') return { ...a, usage: null };
  if (fault === 'bad-args') {
    const calls = a.message?.tool_calls;
    if (!a.message || !calls?.length) return a;
    return {
      ...a,
      message: {
        ...a.message,
        tool_calls: calls.map((t) => ({
          ...t,
          function: { ...t.function, arguments: t.function.arguments.slice(0, -1) },
        })),
      },
    };
  }
  return a;
}
