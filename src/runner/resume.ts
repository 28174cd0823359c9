// `bench --resume DIR`: finish the runs a sweep did not finish, with the settings its meta.json
// holds. Run ids are deterministic (sweep.ts), so the same sweep expands to the same ids and only
// the missing or interrupted ones run again; their partial lines are removed first, so the
// directory ends up as an uninterrupted sweep would have left it.
import fs from 'node:fs';
import { z } from 'zod';
import { UsageError } from '../contracts/errors.ts';
import { validateModelSpec, type ModelTransport } from '../models/factory.ts';
import { resolveScenarios } from '../scenario/loader.ts';
import { zodConfigError } from '../scenario/yaml-file.ts';
import { filterJsonl } from '../results/jsonl.ts';
import type { Meta } from '../results/meta.ts';
import type { RunRecord, StepRecord } from '../contracts/records.ts';
import { resultFile } from '../results/results-dir.ts';
import { LIMITS, limitValue } from '../contracts/limits.ts';
import { REFLECTIONS } from '../contracts/settings.ts';
import { expandSweep, type RunPlan, type SweepSpec } from './sweep.ts';

/** Each limit's values, checked by its row of the table of brakes; a detector may be absent (off). */
const limitGrid = Object.fromEntries(
  LIMITS.map((d) => {
    const values = z.array(limitValue(d.rule).nullable()).min(1);
    return [d.key, 'detector' in d ? values.optional() : values];
  }),
);
/** What resume needs from meta.json, checked: the file may have been edited or damaged. */
const ResumableMeta = z
  .object({
    tool: z.literal('loopbench'),
    status: z.enum(['running', 'complete', 'interrupted', 'capped', 'failed']),
    scenarios: z.array(z.string()).min(1),
    scenario_files: z.array(z.string()).min(1).optional(),
    grid: z.object({
      model: z.array(z.string()).min(1),
      ...limitGrid,
      reflection: z.array(z.enum(REFLECTIONS)),
      context: z.array(z.string()),
      agent: z.record(z.string(), z.array(z.union([z.string(), z.number(), z.boolean(), z.null()]))),
    }),
    fixed: z.object({
      price: z.object({ model: z.string(), input_per_1m: z.number(), cached_input_per_1m: z.number(), output_per_1m: z.number() }),
      prompt_cache: z.boolean(),
      max_output_tokens: z.number().int().positive(),
      max_reflections: z.number().int().nonnegative(),
    }),
    repeat: z.number().int().positive(),
    seed: z.number().int().nonnegative(),
    runs_planned: z.number().int().nonnegative(),
    options: z.object({ concurrency: z.number().int().positive(), transcripts: z.boolean() }).optional(),
  })
  .loose();

export interface ResumePlan {
  meta: Meta;
  spec: SweepSpec;
  /** Runs still to do, in sweep order. */
  todo: RunPlan[];
  /** Runs already finished (kept as they are). */
  done: number;
}

export function readMeta(dir: string): Meta {
  const file = resultFile(dir, 'meta');
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found: not a results directory' : `cannot read it (${(e as Error).message})`;
    throw new UsageError(`${file}: ${why}`);
  }
  const parsed = ResumableMeta.safeParse(raw);
  if (!parsed.success) throw zodConfigError(file, parsed.error);
  return parsed.data as unknown as Meta;
}

export async function planResume(dir: string, transport?: ModelTransport): Promise<ResumePlan> {
  const meta = readMeta(dir);
  // Its batches depended on decisions along the way; re-expanding would run every repeat up to max.
  if (meta.adaptive)
    throw new UsageError(
      meta.adaptive.rule === 'precision'
        ? `${dir}: made by bench run --repeat auto, whose batches depended on the runs before them, so it cannot be resumed: run the sweep again (the same seed takes the same runs)`
        : `${dir}: made by bench check with adaptive repeats, which cannot be resumed: run the check again (the same seed takes the same runs)`,
    );
  const scenarios = resolveScenarios(meta.scenario_files ?? meta.scenarios);
  for (const m of meta.grid.model) validateModelSpec(m, transport);
  const spec: SweepSpec = { scenarios, grid: meta.grid, fixed: meta.fixed, repeat: meta.repeat, seed: meta.seed };
  const plans = expandSweep(spec);
  if (plans.length !== meta.runs_planned)
    throw new UsageError(`${resultFile(dir, 'meta')}: runs_planned is ${meta.runs_planned} but its settings expand to ${plans.length} runs now (did a scenario change?)`);
  const finished = await keepFinishedRuns(dir, new Set(plans.map((p) => p.runId)));
  return { meta, spec, todo: plans.filter((p) => !finished.has(p.runId)), done: finished.size };
}

/** Keeps the records of finished runs only: interrupted runs, partial lines and their steps go. */
async function keepFinishedRuns(dir: string, planned: Set<string>): Promise<Set<string>> {
  const finished = new Set<string>();
  await filterJsonl<RunRecord>(resultFile(dir, 'runs'), (r) => {
    if (!planned.has(r.run_id) || r.stop_reason === 'interrupted' || finished.has(r.run_id)) return false;
    finished.add(r.run_id);
    return true;
  });
  await filterJsonl<StepRecord>(resultFile(dir, 'steps'), (s) => finished.has(s.run_id));
  return finished;
}
