// The mark on a cost-per-success interval whose costs spread widely with no budget (cost-per-success.ts, WIDE_LOG_SD),
// measured: per cell, the reported interval's coverage (and how many of its misses lie below the truth), the share of
// sweeps it marks, and the coverage of the marked and the unmarked sweeps. The cells of the coverage table (the same seeded sweeps) and log-normal ones beyond them
// (log-sd 1.25 and 2; 100 and 200 runs), which bound what the mark's note says. Deterministic.
//
//   npx tsx scripts/cost-spread.ts [SWEEPS]      (default 2000 a cell)
import { CELLS, skewed } from '../test/helpers/cost-coverage.ts';
import { costPerSuccess } from '../src/report/stats/cost-per-success.ts';
import { mulberry32 } from '../src/stats/random.ts';

const sweeps = Number(process.argv[2] ?? 2000);
if (!Number.isInteger(sweeps) || sweeps < 1)
  throw new Error(`cost-spread: SWEEPS must be a positive whole number, got ${process.argv[2]}`);
const cells = [
  ...CELLS,
  skewed(1.25, 0.7, 20),
  skewed(2, 0.7, 20),
  skewed(2, 0.7, 50),
  skewed(1.5, 0.7, 100),
  skewed(1.5, 0.7, 200),
];
const pct = (held: number, of: number) => (of ? `${((100 * held) / of).toFixed(1)} %` : '–');
console.log(
  `| cell (${sweeps.toLocaleString('en')} seeded sweeps each) | coverage (misses below the truth) | sweeps marked ≈ | coverage of the marked | of the unmarked |`,
);
console.log('|---|---|---|---|---|');
for (const cell of cells) {
  // The draws of measureCoverage (test/helpers/cost-coverage.ts): the same sweeps, seed 1.
  const r = mulberry32(1);
  const [marked, unmarked] = [
    { n: 0, held: 0 },
    { n: 0, held: 0 },
  ];
  let below = 0;
  for (let s = 0; s < sweeps; s++) {
    const c = costPerSuccess(
      Array.from({ length: cell.runs }, () => cell.draw(r)),
      cell.budget,
    );
    const tally = c?.wide_spread ? marked : unmarked;
    tally.n++;
    if (c?.ci && c.ci.lo <= cell.truth && cell.truth <= c.ci.hi) tally.held++;
    else if (c?.ci && c.ci.hi < cell.truth) below++;
  }
  const held = marked.held + unmarked.held;
  console.log(
    `| ${cell.name} | ${pct(held, sweeps)} (${below} of ${sweeps - held} below) | ${pct(marked.n, sweeps)} | ${pct(marked.held, marked.n)} | ${pct(unmarked.held, unmarked.n)} |`,
  );
}
