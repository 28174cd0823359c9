// Naming what sets configurations apart, so two sentences about different configurations never read alike.
import { LIMITS } from '../../contracts/limits.ts';
import type { ConfigSettings, Limits } from '../../contracts/settings.ts';

/** The names sweeps use for the limits (`--max-repeat` → repeat=3), from the table of brakes. */
const LIMIT_LABEL = Object.fromEntries(LIMITS.map((l) => [l.key, l.label])) as Record<keyof Limits, string>;

const show = (v: unknown) => (v === null || v === undefined ? 'off' : String(v));

/** `name=value` for every swept setting of `s`. */
function labelled(s: ConfigSettings): Map<string, string> {
  const out = new Map<string, string>([['model', s.model]]);
  for (const [k, label] of Object.entries(LIMIT_LABEL)) out.set(label, show(s.limits[k as keyof Limits]));
  out.set('reflection', s.reflection);
  out.set('context', s.context);
  out.set('prompt cache', s.prompt_cache ? 'on' : 'off');
  out.set('price', s.price.model);
  for (const [k, v] of Object.entries(s.agent)) out.set(k, show(v));
  return out;
}

/** `repeat=3, context=window:4`: every setting of `s` in which some of `others` differ from it, the step limit left out. */
export function differingSettings(
  s: ConfigSettings,
  others: readonly ConfigSettings[],
  leaveOut: readonly string[] = ['steps'],
): string {
  const mine = labelled(s);
  const theirs = others.map(labelled);
  return [...mine]
    .filter(([k, v]) => !leaveOut.includes(k) && theirs.some((t) => t.get(k) !== v))
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
}
