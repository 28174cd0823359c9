// Simulated runs are CPU work that never waits on anything: without a turn of the event loop now
// and then, a signal handler (Ctrl-C, SIGTERM), a timer or another connection would wait for the
// whole sweep. Every model call passes here; at most one turn per slice keeps the cost negligible
// (~3 µs each when nothing waits, measured). 5 ms, not longer: with worker threads, the main thread
// runs runs too and refills the workers' queues only at these turns (runner/sweep-runner.ts): at
// 20 ms, a queue of 8 runs shorter than 2.5 ms each would run dry before the next turn.
const SLICE_MS = 5;
let sliceStart = performance.now();

/** A promise for one turn of the event loop once the current slice has run out, else undefined (no wait). */
export function turnIfDue(): Promise<void> | undefined {
  const now = performance.now();
  if (now - sliceStart < SLICE_MS) return undefined;
  return new Promise((resolve) =>
    setImmediate(() => {
      sliceStart = performance.now();
      resolve();
    }),
  );
}
