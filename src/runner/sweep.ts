// A Sweep = scenarios × settings grid × repeats. Expansion is pure and deterministic, so shards,
// resume and merge all see the same run ids.
import { hash32 } from '../contracts/hash.ts';
import type { Scenario } from '../scenario/schema.ts';
import type { Fixed, Grid, Limits, Price, Reflection, Settings } from '../contracts/settings.ts';
import { LIMITS } from '../contracts/limits.ts';

/** A scenario's own per-role models, overridden by the sweep's; each role priced by its model when known. */
function roleSettings(scenario: Scenario, fixed: Fixed): Pick<Settings, 'role_models' | 'role_prices'> {
  const models = { ...(scenario.agent === 'taskqueue' ? scenario.models : {}), ...fixed.role_models };
  if (Object.keys(models).length === 0) return {};
  const prices = Object.fromEntries(
    Object.entries(models).flatMap(([role, spec]) =>
      fixed.model_prices?.[spec] ? [[role, fixed.model_prices[spec]]] : [],
    ),
  );
  return { role_models: models, ...(Object.keys(prices).length ? { role_prices: prices } : {}) };
}

export interface SweepSpec {
  scenarios: Scenario[];
  grid: Grid;
  fixed: Fixed;
  repeat: number;
  seed: number;
}

export interface RunPlan {
  runId: string;
  configId: string;
  scenario: Scenario;
  settings: Settings;
}

/** Short names used in configuration labels. */
const LABEL: Record<string, string> = {
  model: 'model',
  ...Object.fromEntries(LIMITS.map((d) => [d.key, d.label])),
  queue_cap: 'cap',
  max_result_tokens: 'result_tokens',
  reflection: 'reflection',
  context: 'context',
};

type Dim = { key: string; values: unknown[]; agent: boolean; limit?: true };

function dims(grid: Grid): Dim[] {
  const out: Dim[] = [{ key: 'model', values: grid.model, agent: false }];
  // A detector the grid leaves out is off and not a dimension (LimitDef.detector).
  for (const { key } of LIMITS) if (grid[key]) out.push({ key, values: grid[key], agent: false, limit: true });
  out.push(
    { key: 'reflection', values: grid.reflection, agent: false },
    { key: 'context', values: grid.context, agent: false },
  );
  for (const [k, v] of Object.entries(grid.agent)) out.push({ key: k, values: v, agent: true });
  return out;
}

function cartesian(ds: Dim[]): Array<Record<string, unknown>> {
  let acc: Array<Record<string, unknown>> = [{}];
  for (const d of ds) acc = acc.flatMap((a) => d.values.map((v) => ({ ...a, [d.key]: v })));
  return acc;
}

const show = (v: unknown) => (v === null ? 'off' : String(v));

/** Per-run seed: the same for every configuration of a scenario and repeat (common random numbers). */
export function runSeed(sweepSeed: number, scenario: string, repeat: number): number {
  return hash32(`${sweepSeed}:${scenario}:${repeat}`);
}

const runIdOf = (slug: string, repeat: number) => `${slug}_r${String(repeat).padStart(3, '0')}`;

/** The repeat index a run id ends with (`…_r007` → 7): run facts carry the id, not the repeat. */
export function repeatOfRunId(runId: string): number {
  const m = /_r(\d+)$/.exec(runId);
  if (!m) throw new Error(`not a run id: ${runId}`);
  return Number(m[1]);
}

export function expandSweep(spec: SweepSpec): RunPlan[] {
  const ds = dims(spec.grid);
  const varying = ds.filter((d) => d.values.length > 1 || d.key === 'max_steps');
  const plans: RunPlan[] = [];
  for (const scenario of spec.scenarios) {
    for (const point of cartesian(ds)) {
      const label = [scenario.id, ...varying.map((d) => `${LABEL[d.key] ?? d.key}=${show(point[d.key])}`)].join(' ');
      const limits = Object.fromEntries(ds.filter((d) => d.limit).map((d) => [d.key, point[d.key]])) as Limits;
      const agent = Object.fromEntries(
        ds.filter((d) => d.agent).map((d) => [d.key, point[d.key]]),
      ) as Settings['agent'];
      for (let repeat = 0; repeat < spec.repeat; repeat++) {
        const settings: Settings = {
          scenario: scenario.id,
          model: point.model as string,
          limits,
          reflection: point.reflection as Reflection,
          max_reflections: spec.fixed.max_reflections,
          context: point.context as string,
          price: spec.fixed.price,
          prompt_cache: spec.fixed.prompt_cache,
          max_output_tokens: spec.fixed.max_output_tokens,
          seed: runSeed(spec.seed, scenario.id, repeat),
          repeat,
          agent,
          ...roleSettings(scenario, spec.fixed),
        };
        const slug = label.replace(/[^a-zA-Z0-9.=-]+/g, '_');
        plans.push({ runId: runIdOf(slug, repeat), configId: label, scenario, settings });
      }
    }
  }
  return plans;
}
