// `bench --resume DIR`: finish the runs a sweep did not finish, with the settings its meta.json
// holds. Run ids are deterministic (sweep.ts), so the same sweep expands to the same ids and only
// the missing or interrupted ones run again; their partial lines are removed first, so the
// directory ends up as an uninterrupted sweep would have left it.
import { UsageError } from '../contracts/errors.ts';
import { validateModelSpec, type ModelTransport } from '../models/factory.ts';
import { resolveScenarios } from '../scenario/loader.ts';
import { filterJsonl } from '../results/jsonl.ts';
import { loadMeta, type Meta } from '../results/meta.ts';
import type { RunRecord, StepRecord } from '../contracts/records.ts';
import { resultFile } from '../results/results-dir.ts';
import { expandSweep, type RunPlan, type SweepSpec } from './sweep.ts';

export interface ResumePlan {
  meta: Meta;
  spec: SweepSpec;
  /** Runs still to do, in sweep order. */
  todo: RunPlan[];
  /** Runs already finished (kept as they are). */
  done: number;
}

export async function planResume(dir: string, transport?: ModelTransport): Promise<ResumePlan> {
  const meta = loadMeta(dir);
  // Its batches depended on decisions along the way; re-expanding would run every repeat up to max.
  if (meta.adaptive)
    throw new UsageError(
      meta.adaptive.rule === 'precision'
        ? `${dir}: made by bench run --repeat auto, whose batches depended on the runs before them, so it cannot be resumed: run the sweep again (the same seed takes the same runs)`
        : `${dir}: made by bench check with adaptive repeats, which cannot be resumed: run the check again (the same seed takes the same runs)`,
    );
  if (meta.imported)
    throw new UsageError(
      `${dir}: made by bench import from trajectory files, not by a sweep: there is nothing to resume`,
    );
  const scenarios = resolveScenarios(meta.scenario_files ?? meta.scenarios);
  for (const m of meta.grid.model) validateModelSpec(m, transport);
  const spec: SweepSpec = { scenarios, grid: meta.grid, fixed: meta.fixed, repeat: meta.repeat, seed: meta.seed };
  const plans = expandSweep(spec);
  if (plans.length !== meta.runs_planned)
    throw new UsageError(
      `${resultFile(dir, 'meta')}: runs_planned is ${meta.runs_planned} but its settings expand to ${plans.length} runs now (did a scenario change?)`,
    );
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
