// The full suite's order: its slowest files start first, so the two workers finish together instead
// of one idling while the other runs a long file it took last. Vitest orders by the last run's
// durations only where its cache has them (never on a clean CI checkout; it falls back to file size
// there), so the slowest files are named here (SLOWEST in test/lanes.ts); the rest keep vitest's order,
// the fast lane's files (project `fast`, vitest.config.ts) last: short files to even out the end, and
// one after the other, so a worker goes on in the same unisolated process (vitest keeps it only for that).
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { SLOWEST } from '../lanes.ts';

const rank = (spec: TestSpecification) => {
  const i = SLOWEST.findIndex((f) => spec.moduleId.endsWith(`/test/${f}`));
  if (i !== -1) return i;
  return spec.project.name === 'fast' ? SLOWEST.length + 1 : SLOWEST.length;
};

export class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return sorted
      .map((spec, i) => ({ spec, i }))
      .sort((a, b) => rank(a.spec) - rank(b.spec) || a.i - b.i)
      .map((x) => x.spec);
  }
}
