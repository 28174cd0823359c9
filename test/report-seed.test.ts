// The seed's finding, computed from a real sweep: `bench --scenario seed-calibrated --steps 10,30`.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-seed-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

it('the ratio table reads steps ×3 → input tokens ×9.2 (±0.1) for seed-calibrated 10 → 30, in every report', async () => {
  const dir = path.join(tmp, 'seed');
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      path.join(ROOT, 'bin/bench.js'),
      '--scenario',
      'seed-calibrated',
      '--steps',
      '10,30',
      '--out',
      dir,
      '-q',
      '--no-transcripts',
    ],
    { cwd: ROOT },
  );
  const rows = fs
    .readFileSync(path.join(dir, 'summary.csv'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.split(','));
  const col = rows[0]!.indexOf('input_tokens_mean');
  const [at10, at30] = rows.slice(1).map((r) => Number(r[col]));
  // The seed: ~29,000 and ~267,000 input tokens (200·N + 600·N(N−1)/2).
  expect(Math.abs(at10! / 29_000 - 1)).toBeLessThan(0.02);
  expect(Math.abs(at30! / 267_000 - 1)).toBeLessThan(0.02);
  const ratio = at30! / at10!;
  expect(Math.abs(ratio - 9.2)).toBeLessThan(0.1);

  const shown = `×${+ratio.toFixed(2)}`;
  expect(fs.readFileSync(path.join(dir, 'summary.md'), 'utf8')).toContain(
    `| seed-calibrated | 10 → 30 | 10.0 → 30.0 | ×3 | ${shown} |`,
  );
  expect(fs.readFileSync(path.join(dir, 'report.html'), 'utf8')).toContain(
    `MAX_STEPS 10 → 30: steps taken ×3 (10.0 → 30.0) → input tokens ${shown}.`,
  );
  expect(stdout).toContain(`MAX_STEPS 10 → 30: steps taken ×3 (10.0 → 30.0) → input tokens ${shown}.`);
  // The fit agrees: R² near 1 with a positive quadratic term.
  const fit = fs.readFileSync(path.join(dir, 'fit.csv'), 'utf8').trim().split('\n');
  const [scenario, , b, r2] = fit[1]!.split(',');
  expect(scenario).toBe('seed-calibrated');
  expect(Number(b)).toBeGreaterThan(250);
  expect(Number(r2)).toBeGreaterThan(0.999);
});
