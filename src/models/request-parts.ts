// What a recorded request was made of, kept as short hashes next to its cassette entry: when a
// replay misses, the nearest recorded request says what changed (the system prompt, the goal, the
// tools, the conversation, a parameter) without the cassette holding any prompt text.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson } from '../contracts/fingerprint.ts';
import type { ChatRequest } from '../contracts/chat.ts';

export const RequestParts = z
  .object({
    system: z.string(),
    goal: z.string(),
    tools: z.string(),
    history: z.string(),
    messages: z.number().int().nonnegative(),
    max_tokens: z.number().nullable(),
    temperature: z.number().nullable(),
    seed: z.number().nullable(),
  })
  .strict();
export type RequestParts = z.infer<typeof RequestParts>;

const short = (value: unknown) =>
  createHash('sha256')
    .update(canonicalJson(value ?? null))
    .digest('hex')
    .slice(0, 16);

export function requestParts(r: ChatRequest): RequestParts {
  const firstUser = r.messages.findIndex((m) => m.role === 'user');
  return {
    system: short(r.messages.filter((m) => m.role === 'system')),
    goal: short(firstUser >= 0 ? r.messages[firstUser] : null),
    tools: short(r.tools ?? null),
    history: short(firstUser >= 0 ? r.messages.slice(firstUser + 1) : r.messages.filter((m) => m.role !== 'system')),
    messages: r.messages.length,
    max_tokens: r.max_tokens ?? null,
    temperature: r.temperature ?? null,
    seed: r.seed ?? null,
  };
}

const NAMES: Record<'system' | 'goal' | 'tools' | 'history', string> = {
  system: 'the system prompt',
  goal: 'the goal (first user message)',
  tools: 'the tools',
  history: 'the conversation so far',
};
const PARAMS = ['max_tokens', 'temperature', 'seed'] as const;

/** What differs between a recorded request and the one asked now, in words; empty when nothing does. */
export function partsDiffer(recorded: RequestParts, now: RequestParts): string[] {
  const out: string[] = [];
  for (const k of ['system', 'goal', 'tools'] as const) if (recorded[k] !== now[k]) out.push(NAMES[k]);
  if (recorded.history !== now.history)
    out.push(
      recorded.messages === now.messages
        ? NAMES.history
        : `${NAMES.history} (${recorded.messages} messages recorded, ${now.messages} now)`,
    );
  for (const k of PARAMS)
    if (recorded[k] !== now[k]) out.push(`${k} (${recorded[k] ?? 'unset'} recorded, ${now[k] ?? 'unset'} now)`);
  return out;
}
