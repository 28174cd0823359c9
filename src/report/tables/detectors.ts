// The spin detectors' table and its note, for summary.md and report.html.
import type { DetectorRow } from '../stats/detectors.ts';
import { pct, usd } from '../format/numbers.ts';
import type { Table } from './tables.ts';

/** The detectors' table for summary.md and report.html. */
export function detectorTable(rows: readonly DetectorRow[]): Table {
  return {
    head: ['detector', 'scenario', 'runs', 'stopped', 'loops caught', 'steps saved', 'cost saved', 'false stops'],
    rows: rows.map((r) => [
      `${r.flag} ${r.threshold}`,
      r.scenario,
      String(r.runs),
      String(r.stopped),
      String(r.loops_caught),
      r.steps_saved_mean === null ? '–' : r.steps_saved_mean.toFixed(1),
      `${usd(r.cost_saved_usd)}${r.cost_saved_fraction === null ? '' : ` (${pct(r.cost_saved_fraction)})`}`,
      String(r.false_stops),
    ]),
    numeric: [2, 3, 4, 5, 6, 7],
  };
}

export const DETECTOR_NOTE =
  'Stopped: the detector ended the run while the same seed without it went on. A loop caught: that run did not succeed without the detector either (steps and cost saved are its). A false stop: without the detector it finished successfully.';
