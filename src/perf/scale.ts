// Targets 3 and 5: the scale sweep (seed-calibrated, --steps 10..100:10, --repeat N: about 55
// model calls per run) in a child process, with calls/second and peak RSS; then `bench report`
// on its results, timed.
import fs from 'node:fs';
import path from 'node:path';
import { runBenchChild, type ChildRun } from './child.ts';
import { argvOf, recordedTotals, tempDir, type SweepFlags } from './sweep.ts';

export interface ScaleResult {
  command: string;
  sweep: ChildRun;
  runs: number;
  calls: number;
  callsPerSecond: number;
  report: ChildRun;
}

/** The scale sweep's flags (the overhead sweep is the same, smaller and in process). */
export const sweepFlags = (repeat: number): SweepFlags => ({
  scenario: 'seed-calibrated',
  steps: '10..100:10',
  repeat: String(repeat),
});
export const scaleArgs = (repeat: number, out: string) => [
  ...argvOf(sweepFlags(repeat)),
  '--no-transcripts',
  '-q',
  '--out',
  out,
];

export async function measureScale(repeat: number): Promise<ScaleResult> {
  const dir = tempDir();
  const out = path.join(dir, 'scale');
  try {
    const sweep = await runBenchChild(scaleArgs(repeat, out));
    const { runs, calls } = await recordedTotals(out);
    const report = await runBenchChild(['report', out]);
    return {
      command: `bench ${scaleArgs(repeat, 'DIR').join(' ')}`,
      sweep,
      runs,
      calls,
      callsPerSecond: calls / (sweep.ms / 1000),
      report,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
