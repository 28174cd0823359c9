// The spin detectors on the shipped scenarios: each catches its loop early, with a detail that names
// the pattern and the actions (the look-alikes that are not loops: spin-false-stops.test.ts).
import { describe, expect, it } from 'vitest';
import { runOnce } from './helpers.ts';

describe('each detector on its own loop', () => {
  it('cycle: downloads-reorg is blocked at step 9 (the exact-repeat brake waits until 13), naming the four re-sorts', async () => {
    const r = await runOnce('downloads-reorg', { max_steps: 30, max_cycle: 4 });
    expect([r.record.stop_reason, r.record.stop_step]).toEqual(['spin', 9]);
    expect(r.record.stop_detail).toBe(
      'cycle: sort_files({"criterion":"type"}) → sort_files({"criterion":"date"}) → sort_files({"criterion":"project"}) → sort_files({"criterion":"size"}) repeated (period 4, max cycle 4); blocked at step 9',
    );
    expect((await runOnce('downloads-reorg', { max_steps: 30 })).record.stop_step).toBe(13);
  });

  it('near-duplicate: the perfectionist is blocked at its first recycled refinement (step 6) instead of running to the step limit', async () => {
    const r = await runOnce('perfectionist', { max_steps: 30, timeout_s: null, near_duplicate: 0.98 });
    expect([r.record.stop_reason, r.record.stop_step]).toEqual(['spin', 6]);
    expect(r.record.stop_detail).toMatch(
      /^near-duplicate: run_python\(\{"code":"# refinement 2: a named function.* similar to step 3's run_python\(\{"code":"# refinement 1: a named function.*; blocked at step 6$/,
    );
    expect((await runOnce('perfectionist', { max_steps: 8, timeout_s: null })).record.stop_reason).toBe('max_steps');
  });

  it('same error: missing-file (real Python, a FileNotFoundError each time) is blocked at step 4; exact repeats never occur', async () => {
    const r = await runOnce('missing-file', { max_steps: 12, max_same_error: 3 });
    expect([r.record.stop_reason, r.record.stop_step]).toEqual(['spin', 4]);
    expect(r.record.stop_detail).toBe(
      `same error: run_python failed 3 times in a row with "FileNotFoundError: [Errno 2] No such file or directory: '/data/sales-2025.csv'" (max same error 3); blocked at step 4`,
    );
    expect((await runOnce('missing-file', { max_steps: 6 })).record.stop_reason).toBe('max_steps');
  });
});

describe('the thresholds the README table reports', () => {
  it('near-duplicate 0.98 stops the AutoGPT loop at step 3 (its searches differ by a counter); 0.99 lets it run', async () => {
    const at = async (t: number) =>
      (await runOnce('autogpt-recursive-verification', { max_steps: 30, max_repeat: null, near_duplicate: t })).record;
    expect([(await at(0.98)).stop_reason, (await at(0.98)).stop_step]).toEqual(['spin', 3]);
    expect((await at(0.99)).stop_reason).not.toBe('spin');
  });

  it('a cycle detector with a limit below the cycle period (2 < 4) does not see downloads-reorg', async () => {
    const r = await runOnce('downloads-reorg', { max_steps: 30, max_repeat: null, max_cycle: 2 });
    expect(r.record.stop_reason).not.toBe('spin');
  });
});
