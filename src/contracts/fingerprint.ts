// Spin detection fingerprints an action as (tool name, canonical JSON of its arguments), so
// `{"a":1,"b":2}` and `{ "b": 2, "a": 1 }` are the same action. A call that runs several actions is one
// step: its record joins their tools, and their fingerprints, with ACTIONS_JOINED_BY (stepActions).
import type { StepRecord } from './records.ts';

/** Between the actions of one call in a step record's action and fingerprint. */
export const ACTIONS_JOINED_BY = '|';

/**
 * A call's actions as its step record spells them: their tools, and their fingerprints, joined in order;
 * both null for a call without actions. The fingerprint is null when any action's is unknown (a log that
 * kept a tool's name but not its arguments), so spin is never derived from part of a call.
 */
export function stepActions(
  actions: ReadonlyArray<{ tool: string; fingerprint: string | null }>,
): Pick<StepRecord, 'action' | 'fingerprint'> {
  if (actions.length === 0) return { action: null, fingerprint: null };
  return {
    action: actions.map((a) => a.tool).join(ACTIONS_JOINED_BY),
    fingerprint: actions.every((a) => a.fingerprint !== null)
      ? actions.map((a) => a.fingerprint).join(ACTIONS_JOINED_BY)
      : null,
  };
}

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

/** `args` is the parsed arguments, or the raw string when it did not parse. */
export function fingerprint(tool: string, args: unknown): string {
  return fingerprintOf(tool, argsJson(args));
}

/** The fingerprint of a tool called with arguments already spelled as argsJson spells them. */
export const fingerprintOf = (tool: string, json: string): string => `${tool}(${json})`;

/** The arguments as the detectors compare them: canonical JSON, or the raw text when it did not parse. */
export const argsJson = (args: unknown): string => (typeof args === 'string' ? args : canonicalJson(args));

/** The arguments part of one action's fingerprint (`search({"q":"x"})` → `{"q":"x"}`), for records that keep only the fingerprint: fingerprintOf undone. */
export const argsOfFingerprint = (tool: string, fp: string): string => fp.slice(tool.length + 1, -1);
