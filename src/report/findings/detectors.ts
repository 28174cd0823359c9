// The spin detectors' findings: one sentence per detector setting, over every scenario swept.
import type { DetectorRow } from '../stats/detectors.ts';
import { groupBy } from '../data/group.ts';

/** One sentence per detector and threshold, over every scenario swept. */
export function detectorFindings(rows: readonly DetectorRow[]): string[] {
  return [...groupBy(rows, (r) => `${r.flag} ${r.threshold}`)].map(([setting, g]) => {
    const runs = g.reduce((s, r) => s + r.runs, 0);
    const caught = g.reduce((s, r) => s + r.loops_caught, 0);
    const falseStops = g.filter((r) => r.false_stops > 0);
    const saved = g.reduce((s, r) => s + r.cost_saved_usd, 0);
    const where = falseStops.length ? ` (${falseStops.map((r) => `${r.scenario}: ${r.false_stops}`).join(', ')})` : '';
    return `${setting}: caught ${caught} looping run(s) of ${runs} paired with it off, saving $${saved.toFixed(4)}; ${falseStops.reduce((s, r) => s + r.false_stops, 0)} false stop(s)${where}.`;
  });
}
