// The shipped examples stay true: examples/budgets.yaml passes on the sim, and the workflow runs
// the commands this version of bench accepts.
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ownVersion } from '../src/contracts/paths.ts';
import { judge } from '../src/gate/judge.ts';
import { loadBudgets } from '../src/gate/load-budgets.ts';
import { runBudgets, tempDir } from './gate-helpers.ts';
import { patient } from './helpers/patient.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const BUDGETS = path.join(ROOT, 'examples/budgets.yaml');

describe('shipped examples', () => {
  it(
    'examples/budgets.yaml holds on the simulated model',
    async () => {
      const outcome = await runBudgets(BUDGETS, path.join(tempDir(), 'example'), { concurrency: 4 });
      const verdicts = judge(loadBudgets(BUDGETS).checks, outcome.runs, {});
      expect(verdicts.filter((v) => !v.pass)).toEqual([]);
      expect(verdicts.length).toBeGreaterThanOrEqual(8);
    },
    patient(180_000),
  );

  it('examples/github-actions.yml runs 4 shards of loopbench/budgets.yaml, merges all 4 and checks the merge', () => {
    const wf = parse(fs.readFileSync(path.join(ROOT, 'examples/github-actions.yml'), 'utf8'));
    expect(wf.jobs.sweep.strategy.matrix.shard).toEqual([1, 2, 3, 4]);
    const runs = (job: { steps: Array<{ run?: string }> }) => job.steps.flatMap((s) => (s.run ? [s.run] : []));
    expect(runs(wf.jobs.sweep)).toContain(
      'npx bench check loopbench/budgets.yaml --shard ${{ matrix.shard }}/4 --ci-max-spend 0.25 -q -o results/shard-${{ matrix.shard }}',
    );
    expect(wf.jobs.gate.needs).toBe('sweep');
    expect(runs(wf.jobs.gate)).toEqual([
      `npm install --no-save --no-audit --no-fund loopbench-cli@${ownVersion()}`,
      'npx bench merge shards/shard-1 shards/shard-2 shards/shard-3 shards/shard-4 -o results/merged',
      'npx bench check loopbench/budgets.yaml --from results/merged',
    ]);
  });
});
