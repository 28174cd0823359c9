// What makes two sweeps comparable: the settings a sweep was made with (from its meta.json, or as a
// baseline.json recorded them), and every way two of them differ, each named and filed under the
// kind a user may allow (`bench diff --allow prompt,model`, `bench check --baseline`).
import type { Meta } from '../../results/meta.ts';
import { LIMITS } from '../../contracts/limits.ts';
import type { Fixed, Grid } from '../../contracts/settings.ts';

export interface SweepSettings {
  scenarios: string[];
  /** A digest of each scenario's content (prompt, tools, check); absent in sweeps made before digests were recorded. */
  scenario_digests?: Record<string, string>;
  grid: Grid;
  fixed: Fixed;
  repeat: number;
  seed: number;
}

/** The kinds of difference a user may allow, and what each covers. */
export const DIFFERENCE_KINDS = {
  model: 'the models swept, and per-role models',
  prompt: "a scenario's content: system prompt, goal, tools, check",
  pricing: 'prices and prompt caching',
  // From the table of brakes, so a new limit is named (and compared, below) without an edit here.
  limits: `the brakes (${LIMITS.map((l) => l.flag).join(', ')}) and --max-output-tokens`,
  seed: 'the sweep seed',
  repeats: 'runs per configuration',
  scenarios: 'which scenarios were run',
  loop: 'reflection, context strategy and task-queue settings',
} as const;
export type DifferenceKind = keyof typeof DIFFERENCE_KINDS;
export const isDifferenceKind = (s: string): s is DifferenceKind => Object.hasOwn(DIFFERENCE_KINDS, s);

export interface Difference {
  kind: DifferenceKind;
  /** What differs, with both values: `max_steps 12,30 vs 12,40`. */
  text: string;
}

export function settingsOf(meta: Meta): SweepSettings {
  return {
    scenarios: meta.scenarios,
    ...(meta.scenario_digests ? { scenario_digests: meta.scenario_digests } : {}),
    grid: meta.grid,
    fixed: meta.fixed,
    repeat: meta.repeat,
    seed: meta.seed,
  };
}

const show = (v: unknown): string =>
  Array.isArray(v)
    ? v.map((x) => (x === null ? 'off' : typeof x === 'object' ? JSON.stringify(x) : String(x))).join(',')
    : v === null
      ? 'off'
      : v === undefined
        ? 'none'
        : typeof v === 'object'
          ? JSON.stringify(v)
          : String(v);
const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** Every way `b` differs from `a`, each with both values; empty when the two are the same sweep but for its runs. */
export function sweepDifferences(a: SweepSettings, b: SweepSettings): Difference[] {
  const out: Difference[] = [];
  const field = (kind: DifferenceKind, name: string, x: unknown, y: unknown) => {
    if (!same(x, y)) out.push({ kind, text: `${name} ${show(x)} vs ${show(y)}` });
  };
  field('model', 'model', a.grid.model, b.grid.model);
  field('model', 'role models', a.fixed.role_models, b.fixed.role_models);
  const onlyA = a.scenarios.filter((s) => !b.scenarios.includes(s));
  const onlyB = b.scenarios.filter((s) => !a.scenarios.includes(s));
  if (onlyA.length || onlyB.length)
    out.push({ kind: 'scenarios', text: `scenarios ${a.scenarios.join(',')} vs ${b.scenarios.join(',')}` });
  for (const s of a.scenarios.filter((x) => b.scenarios.includes(x))) {
    const [da, db] = [a.scenario_digests?.[s], b.scenario_digests?.[s]];
    if (da === undefined || db === undefined)
      out.push({
        kind: 'prompt',
        text: `scenario ${s}: no digest of its content recorded, so a changed prompt cannot be ruled out`,
      });
    else if (da !== db) out.push({ kind: 'prompt', text: `scenario ${s}: its prompt, tools or check differ` });
  }
  field('pricing', 'price', a.fixed.price, b.fixed.price);
  field('pricing', 'prompt caching', a.fixed.prompt_cache, b.fixed.prompt_cache);
  field('pricing', 'per-model prices', a.fixed.model_prices, b.fixed.model_prices);
  // Every brake in the table of limits, loop detectors included (a detector is absent while off, which equals off).
  for (const { key } of LIMITS) field('limits', key, a.grid[key] ?? [null], b.grid[key] ?? [null]);
  field('limits', 'max_output_tokens', a.fixed.max_output_tokens, b.fixed.max_output_tokens);
  field('seed', 'seed', a.seed, b.seed);
  field('repeats', 'repeats', a.repeat, b.repeat);
  field('loop', 'reflection', a.grid.reflection, b.grid.reflection);
  field('loop', 'max_reflections', a.fixed.max_reflections, b.fixed.max_reflections);
  field('loop', 'context', a.grid.context, b.grid.context);
  field('loop', 'task-queue settings', a.grid.agent, b.grid.agent);
  return out;
}

/** The differences of a kind the user did not allow. */
export function disallowed(differences: readonly Difference[], allowed: ReadonlySet<DifferenceKind>): Difference[] {
  return differences.filter((d) => !allowed.has(d.kind));
}

export const describeDifferences = (ds: readonly Difference[]) => ds.map((d) => d.text).join('; ');
