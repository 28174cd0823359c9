// `bench diff A B` below the command line: read both results directories (meta.json and runs.jsonl
// only), refuse when they differ in a way the user did not allow, else compare them.
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../../contracts/errors.ts';
import { loadMeta, type Meta } from '../../results/meta.ts';
import { resultFile, resultsDirFor } from '../../results/results-dir.ts';
import { diffSweeps, type SweepDiff } from './diff.ts';
import { describeDuplicates, loadRuns } from '../data/load-runs.ts';
import {
  describeDifferences,
  disallowed,
  settingsOf,
  sweepDifferences,
  type Difference,
  type DifferenceKind,
} from '../data/sweep-settings.ts';

/** A path, or a name under results/ (as `--out` names it). */
const dirOf = (arg: string) => (fs.existsSync(arg) ? path.resolve(arg) : resultsDirFor(arg));

function readSweep(arg: string, which: 'A' | 'B'): Meta {
  const dir = dirOf(arg);
  if (!fs.existsSync(resultFile(dir, 'runs')) || !fs.existsSync(resultFile(dir, 'meta')))
    throw new UsageError(`${which} ${arg}: not a results directory (no meta.json and runs.jsonl)`);
  // Strict: a damaged meta.json is named as damaged (file and field), not taken for a missing one.
  const meta = loadMeta(dir);
  if (meta.shard)
    throw new UsageError(
      `${which} ${arg}: holds only shard ${meta.shard.index}/${meta.shard.count} of its sweep (bench merge the shards first)`,
    );
  return meta;
}

export interface ComparedSweeps {
  diff: SweepDiff;
  /** How the sweeps differ, every way allowed. */
  differences: Difference[];
  /** What was read but not counted (run records repeating a run id), one line per sweep that had any. */
  notes: string[];
}

export async function compareSweeps(
  a: string,
  b: string,
  allowed: ReadonlySet<DifferenceKind>,
): Promise<ComparedSweeps> {
  const [ma, mb] = [readSweep(a, 'A'), readSweep(b, 'B')];
  const differences = sweepDifferences(settingsOf(ma), settingsOf(mb));
  const refused = disallowed(differences, allowed);
  if (refused.length) {
    const kinds = [...new Set(refused.map((d) => d.kind))].join(',');
    throw new UsageError(
      `${a} and ${b} are not the same sweep: they differ in ${describeDifferences(refused)} (if that is the comparison you mean, add --allow ${kinds})`,
    );
  }
  const [ra, rb] = await Promise.all([loadRuns(resultFile(dirOf(a), 'runs')), loadRuns(resultFile(dirOf(b), 'runs'))]);
  const diff = diffSweeps(ra.runs, rb.runs);
  if (diff.rows.length === 0) throw new UsageError(`${a} and ${b} have no configuration in common to compare`);
  const notes = (
    [
      [a, ra],
      [b, rb],
    ] as const
  ).flatMap(([arg, r]) =>
    r.duplicates.length ? [describeDuplicates(path.join(arg, 'runs.jsonl'), r.duplicates)] : [],
  );
  return { diff, differences, notes };
}
