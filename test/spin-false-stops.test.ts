// False stops of the spin detectors, paired run by run with the detector off: none over 100 seeds of
// the look-alikes that are not loops (polling a job whose status moves on, reading search results page
// after page) at the recommended settings, and the ones a looser threshold makes are counted.
import { describe, expect, it } from 'vitest';
import type { Grid } from '../src/contracts/settings.ts';
import { detectorRows } from '../src/report/stats/detectors.ts';
import { gridOf, runOnce, runPlans, specOf } from './helpers.ts';
import { patient } from './helpers/patient.ts';

/** The README's recommended settings when a detector is switched on. */
const RECOMMENDED = { max_cycle: 4, max_same_error: 3, near_duplicate: 0.98 } as const;

describe('false stops, paired run by run with the detector off', () => {
  const sweep = async (
    scenarios: string[],
    detectors: Partial<Record<keyof typeof RECOMMENDED, Array<number | null>>>,
    repeat: number,
  ) => {
    const grid: Grid = { ...gridOf({ max_steps: 30, max_repeat: null }), ...detectors };
    const ran = await runPlans(specOf(scenarios, grid, { repeat }));
    return detectorRows(ran.map((r) => ({ ...r.record, repeat: r.record.settings.repeat })));
  };

  it(
    'none over 100 seeds of the look-alikes (polling a job, reading pages) at the recommended settings',
    { timeout: patient(120_000) },
    async () => {
      const rows = await sweep(
        ['job-polling', 'paginated-search'],
        {
          max_cycle: [RECOMMENDED.max_cycle, null],
          max_same_error: [RECOMMENDED.max_same_error, null],
          near_duplicate: [RECOMMENDED.near_duplicate, null],
        },
        100,
      );
      expect(rows.map((r) => [r.flag, r.scenario, r.runs, r.stopped, r.false_stops])).toEqual(
        ['--max-cycle', '--max-same-error', '--near-duplicate'].flatMap((flag) =>
          ['job-polling', 'paginated-search'].map((s) => [flag, s, 400, 0, 0]),
        ),
      );
    },
  );

  it('counts the false stops a looser threshold makes: near-duplicate 0.95 stops every paginated search at page 2', async () => {
    const [row] = await sweep(['paginated-search'], { near_duplicate: [0.95, null] }, 10);
    expect([row!.stopped, row!.false_stops, row!.loops_caught]).toEqual([10, 10, 0]);
  });

  it('and the exact-repeat brake at its default 3 stops every poll at the 4th, which the cycle detector does not', async () => {
    const r = await runOnce('job-polling', { max_steps: 30, max_cycle: 4 });
    expect([r.record.stop_reason, r.record.stop_step]).toEqual(['spin', 4]);
    expect(r.record.stop_detail).toMatch(/^spin: job_status/);
    const off = await runOnce('job-polling', { max_steps: 30, max_repeat: null, max_cycle: 4 });
    expect([off.record.stop_reason, off.record.success]).toEqual(['done', true]);
  });
});
