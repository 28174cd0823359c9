// `--context` values: one table of context strategies. Each row says how its value is written
// (`full`, `window:K`, `summarize:T`), the rule for its number, which agent loops apply it, and the
// help text; the flag's help, its validation and the plan's refusals are derived from it. What each
// strategy does is in context.ts, keyed by the same name.
import { UsageError } from '../contracts/errors.ts';

/** Below this a summary plus the latest exchange could not fit, and every call would summarise. */
export const MIN_SUMMARIZE_TOKENS = 500;

export interface ContextStrategyDef {
  name: string;
  /** The whole number after the colon, when the strategy takes one. */
  param?: { min: number; tooSmall: string };
  help: string;
  /** The agent loops that apply it (a strategy is refused at load for any other). */
  agents: readonly string[];
}

export const CONTEXT_STRATEGIES = [
  { name: 'full', help: 'full', agents: ['react', 'taskqueue'] },
  {
    name: 'window',
    param: { min: 1, tooSmall: 'keeps no exchange' },
    help: 'window:K (system prompt + goal + the last K exchanges, K ≥ 1)',
    agents: ['react'],
  },
  {
    name: 'summarize',
    param: { min: MIN_SUMMARIZE_TOKENS, tooSmall: `is below the minimum of ${MIN_SUMMARIZE_TOKENS} tokens` },
    help: `summarize:T (summarise older history when the prompt would pass T tokens, T ≥ ${MIN_SUMMARIZE_TOKENS})`,
    agents: ['react'],
  },
] as const satisfies readonly ContextStrategyDef[];

export type ContextStrategyName = (typeof CONTEXT_STRATEGIES)[number]['name'];

export const CONTEXT_HELP = `${CONTEXT_STRATEGIES.slice(0, -1)
  .map((d) => d.help)
  .join(', ')} or ${CONTEXT_STRATEGIES.at(-1)!.help}`;

export interface ContextSpec {
  kind: ContextStrategyName;
  /** The number after the colon; null for a strategy without one. */
  param: number | null;
}

export function parseContextSpec(text: string, flag = '--context'): ContextSpec {
  const bad = (why: string) => new UsageError(`${flag}: '${text}' ${why} (accepted: ${CONTEXT_HELP})`);
  const [name, ...rest] = text.split(':');
  const def: ContextStrategyDef | undefined = CONTEXT_STRATEGIES.find((d) => d.name === name);
  if (!def || rest.length > 0 !== Boolean(def.param)) throw bad('is not a context strategy');
  if (!def.param) return { kind: def.name as ContextStrategyName, param: null };
  const raw = rest.join(':');
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n)) throw bad('needs a whole number after the colon');
  if (n < def.param.min) throw bad(def.param.tooSmall);
  return { kind: def.name as ContextStrategyName, param: n };
}

/** A comma-separated list of strategies, each validated; duplicates dropped, order kept. */
export function parseContextList(text: string, flag = '--context'): string[] {
  const out = text.split(',').map((s) => s.trim());
  for (const v of out) parseContextSpec(v, flag);
  return [...new Set(out)];
}

/** Whether an agent loop applies the strategy a `context` setting names. */
export function appliesTo(context: string, agent: string): boolean {
  const def: ContextStrategyDef = CONTEXT_STRATEGIES.find((d) => d.name === parseContextSpec(context).kind)!;
  return def.agents.includes(agent);
}
