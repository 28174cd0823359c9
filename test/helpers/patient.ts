// A test's timeout guards against a hang; it measures nothing. On a machine loaded past its cores
// every test is slower by about the load per core, so each timeout is stretched by that factor
// (read when the timeout is given, as its test is declared; at least 1, at most 10): a loaded machine
// is slow, not wrong.
// vitest.config.ts stretches its default timeouts by the same rule.
import os from 'node:os';

/** How many times slower than a quiet machine this one runs now: the 1-minute load per core, within 1..10. */
export function loadScale(): number {
  return Math.min(10, Math.max(1, os.loadavg()[0]! / os.availableParallelism()));
}

/** `ms` stretched by the machine's load now. */
export const patient = (ms: number): number => Math.round(ms * loadScale());
