// The coverage table of docs/adaptive.md#cost-per-successful-task: per cell, how often the 95 % interval of
// cost per successful task holds the truth, before (delta method on the log scale) and after (the braked
// studentized bootstrap), on seeded sweeps (the same cells test/cost-per-success.test.ts asserts on, with
// more sweeps). Deterministic: the same command prints the same table.
//
//   npx tsx scripts/cost-coverage.ts [SWEEPS]      (default 2000 a cell)
import { CELLS, measureCoverage } from '../test/helpers/cost-coverage.ts';

const sweeps = Number(process.argv[2] ?? 2000);
if (!Number.isInteger(sweeps) || sweeps < 1)
  throw new Error(`cost-coverage: SWEEPS must be a positive whole number, got ${process.argv[2]}`);
const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
console.log(
  `| cell (${sweeps.toLocaleString('en')} seeded sweeps each) | before: delta method | after | misses below the truth, before → after | median width ÷ percentile bootstrap's |`,
);
console.log('|---|---|---|---|---|');
for (const cell of CELLS) {
  const m = measureCoverage(cell, sweeps);
  const missesBefore = Math.round((1 - m.before) * sweeps);
  const missesAfter = Math.round((1 - m.after) * sweeps);
  console.log(
    `| ${cell.name} | ${pct(m.before)} | **${pct(m.after)}** | ${m.beforeBelow} of ${missesBefore} → ${m.afterBelow} of ${missesAfter} | ${(m.medianWidth / m.medianWidthPercentile).toFixed(2)} |`,
  );
}
