// Spin detection fingerprints an action as (tool name, canonical JSON of its arguments), so
// `{"a":1,"b":2}` and `{ "b": 2, "a": 1 }` are the same action.

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

/** `args` is the parsed arguments, or the raw string when it did not parse. */
export function fingerprint(tool: string, args: unknown): string {
  return `${tool}(${argsJson(args)})`;
}

/** The arguments as the detectors compare them: canonical JSON, or the raw text when it did not parse. */
export const argsJson = (args: unknown): string => (typeof args === 'string' ? args : canonicalJson(args));

/** The arguments part of one action's fingerprint (`search({"q":"x"})` → `{"q":"x"}`), for records that keep only the fingerprint. */
export const argsOfFingerprint = (tool: string, fp: string): string => fp.slice(tool.length + 1, -1);
