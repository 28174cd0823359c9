// What each spin detector (--max-cycle, --max-same-error, --near-duplicate) buys and what it costs, from
// the records alone: every run with a detector on is paired with the run of the same seed in the
// configuration that differs only by that detector being off — as the step-limit savings pair limits.
// A run the detector stopped either looped (without the detector it did not succeed: steps and cost
// saved) or is a false stop (without the detector it finished successfully).
import type { RunFacts } from '../../contracts/records.ts';
import { LIMITS } from '../../contracts/limits.ts';
import { configKey } from '../../contracts/settings.ts';
import { groupBy } from '../data/group.ts';
import { mean } from './descriptive.ts';

const DETECTORS = LIMITS.filter((d) => 'detector' in d);

/** One detector setting on one scenario, over every configuration that has it on and a twin with it off. */
export interface DetectorRow {
  detector: string;
  flag: string;
  threshold: number;
  scenario: string;
  /** Configurations paired (the detector on, and the same settings with it off). */
  configurations: number;
  /** Runs paired by seed. */
  runs: number;
  /** Runs the detector stopped (their twin without it went on past that step). */
  stopped: number;
  /** Stopped runs that did not succeed without the detector either: the loops it caught. */
  loops_caught: number;
  /** Mean over the loops caught of the steps the twin took beyond the stop. */
  steps_saved_mean: number | null;
  /** Cost of the loops caught: twin minus stopped run, summed. */
  cost_saved_usd: number;
  /** cost_saved_usd over the twins' cost of all paired runs. */
  cost_saved_fraction: number | null;
  /** Stopped runs that finish successfully without the detector. */
  false_stops: number;
}

/** Succeeded: the scenario's check passed, or — for a scenario that checks nothing — the agent finished on its own. */
const succeeded = (r: RunFacts) =>
  r.success === true || (r.success === null && (r.stop_reason === 'done' || r.stop_reason === 'queue_empty'));

type Run = RunFacts & { repeat: number };

/** (run with the detector on, its twin with it off) for every run that has a twin. */
function twins(byConfig: Map<string, Run[]>, group: readonly Run[], key: string): Array<readonly [Run, Run]> {
  const s = group[0]!.settings;
  const baseline = byConfig.get(configKey({ ...s, limits: { ...s.limits, [key]: null } }));
  if (!baseline) return [];
  const bySeed = new Map(baseline.map((b) => [b.repeat, b]));
  return group.flatMap((r) => (bySeed.has(r.repeat) ? [[r, bySeed.get(r.repeat)!] as const] : []));
}

export function detectorRows(runs: readonly Run[]): DetectorRow[] {
  const byConfig = groupBy(runs, (r) => configKey(r.settings));
  const out: DetectorRow[] = [];
  for (const d of DETECTORS) {
    const on = [...byConfig.values()].filter((g) => g[0]!.settings.limits[d.key] != null);
    const bySetting = groupBy(on, (g) => `${g[0]!.settings.limits[d.key]}\u0000${g[0]!.scenario}`);
    for (const groups of bySetting.values()) {
      const paired = groups.map((g) => twins(byConfig, g, d.key)).filter((p) => p.length > 0);
      if (paired.length === 0) continue;
      const pairs = paired.flat();
      const stopped = pairs.filter(
        ([r, b]) => r.stop_reason === 'spin' && !(b.stop_reason === 'spin' && b.stop_step === r.stop_step),
      );
      const loops = stopped.filter(([, b]) => !succeeded(b));
      const saved = loops.reduce((s, [r, b]) => s + b.cost_usd - r.cost_usd, 0);
      const twinCost = pairs.reduce((s, [, b]) => s + b.cost_usd, 0);
      out.push({
        detector: d.label,
        flag: d.flag,
        threshold: groups[0]![0]!.settings.limits[d.key]!,
        scenario: groups[0]![0]!.scenario,
        configurations: paired.length,
        runs: pairs.length,
        stopped: stopped.length,
        loops_caught: loops.length,
        steps_saved_mean: loops.length ? mean(loops.map(([r, b]) => b.steps - r.steps)) : null,
        cost_saved_usd: saved,
        cost_saved_fraction: twinCost > 0 ? saved / twinCost : null,
        false_stops: stopped.length - loops.length,
      });
    }
  }
  return out;
}
