// Test helpers: run one scenario in process, exactly as a sweep would, and collect its records.
import { DEFAULT_PRICED_MODEL, loadPricing, priceFor } from '../src/meter/pricing.ts';
import { TokenCounter } from '../src/meter/tokens.ts';
import type { RunRecord, StepRecord } from '../src/contracts/records.ts';
import { executeRun, type RunResult } from '../src/runner/run-one.ts';
import { SEED_LIMITS, type Limits, type Settings, type Grid } from '../src/contracts/settings.ts';
import { LIMITS, type LimitGrid } from '../src/contracts/limits.ts';
import { expandSweep, type SweepSpec } from '../src/runner/sweep.ts';
import { resolveScenario } from '../src/scenario/loader.ts';
import type { Scenario } from '../src/scenario/schema.ts';
import { ToolRegistry } from '../src/tools/registry.ts';

export function gridOf(limits: Partial<Limits> = {}, extra: Partial<Grid> = {}): Grid {
  const l: Partial<Limits> = { ...SEED_LIMITS, ...limits };
  return {
    model: ['sim'],
    // Every limit given (the detectors only when asked for, as the CLI leaves them out while off).
    ...(Object.fromEntries(LIMITS.flatMap((d) => (d.key in l ? [[d.key, [l[d.key] ?? null]]] : []))) as LimitGrid),
    reflection: ['off'],
    context: ['full'],
    agent: {},
    ...extra,
  };
}

export function specOf(
  scenarios: Array<string | Scenario>,
  grid: Grid,
  o: { repeat?: number; seed?: number; settings?: Partial<Settings> } = {},
): SweepSpec {
  return {
    scenarios: scenarios.map((s) => (typeof s === 'string' ? resolveScenario(s) : s)),
    grid,
    fixed: {
      price: priceFor(loadPricing(), DEFAULT_PRICED_MODEL),
      prompt_cache: o.settings?.prompt_cache ?? false,
      max_output_tokens: o.settings?.max_output_tokens ?? 1024,
      max_reflections: 2,
    },
    repeat: o.repeat ?? 1,
    seed: o.seed ?? 1,
  };
}

export interface Ran extends RunResult {
  steps: StepRecord[];
}

/** Run every planned run of a sweep in process (no files), returning records and transcripts. */
export async function runPlans(spec: SweepSpec, counter = new TokenCounter()): Promise<Ran[]> {
  const out: Ran[] = [];
  for (const plan of expandSweep(spec)) {
    const steps: StepRecord[] = [];
    const result = await executeRun(plan, {
      counter,
      tools: (p) => ToolRegistry.fromDecls(p.scenario.tools),
      onStep: (r) => steps.push(r),
    });
    out.push({ ...result, steps });
  }
  return out;
}

export async function runOnce(
  scenario: string | Scenario,
  limits: Partial<Limits> = {},
  o: Parameters<typeof specOf>[2] = {},
): Promise<Ran> {
  const [r] = await runPlans(specOf([scenario], gridOf(limits), o));
  return r!;
}

export const mean = (rs: RunRecord[], f: (r: RunRecord) => number) => rs.reduce((s, r) => s + f(r), 0) / rs.length;
