// Set up in every file of the fast lane (the project `fast` of vitest.config.ts, in `npm test` as in
// `npm run test:fast`): no child processes, and a refused attempt fails the test even where the error was caught.
import { afterEach, expect } from 'vitest';
import { forbidChildProcesses, refused } from './no-child-processes.ts';

// Once per worker process: files share a worker (and this module) when the lane runs unisolated.
const GUARDED = Symbol.for('loopbench.fast-lane.guarded');
const marks = globalThis as { [GUARDED]?: true };
if (!marks[GUARDED]) {
  forbidChildProcesses();
  marks[GUARDED] = true;
}

afterEach(() => {
  const seen = refused.splice(0);
  expect(seen, 'this test started another program; the fast lane starts none').toEqual([]);
});
