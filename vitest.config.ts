import { defineConfig } from 'vitest/config';
import { FAST } from './test/lanes.ts';
import { SlowestFirst } from './test/lanes/slowest-first.ts';
import { loadScale } from './test/helpers/patient.ts';

const fastFiles = FAST.map((f) => `test/${f}`);
// Timeouts guard against hangs: stretched by the load per core at start, as each test's own (test/helpers/patient.ts).
const scale = loadScale();

export default defineConfig({
  test: {
    testTimeout: Math.round(60_000 * scale),
    hookTimeout: Math.round(60_000 * scale),
    pool: 'forks',
    // Two test files at a time on CI's 2 cores (vitest's default leaves one core idle): the tests wait for
    // events, not times, so a core shared with the other file is slower, not wrong (passed this way loaded and quiet).
    maxWorkers: 2,
    // The slowest files first (test/lanes.ts, SLOWEST), so the two workers finish together; the fast
    // lane's files last, one after the other, so each worker keeps its unisolated process for them.
    sequence: { sequencer: SlowestFirst },
    // Tests wait for events, never for a fixed time; a loaded machine is slow, not wrong.
    expect: { poll: { timeout: Math.round(30_000 * scale) } },
    // The two lanes of test/lanes.ts. `npm run test:fast` is `--project fast`.
    projects: [
      {
        extends: true,
        test: {
          // In-process tests with no child process allowed (test/lanes/fast-setup.ts), the same in
          // `npm test` as in the fast lane. Files share one module cache per worker (a process and an
          // import of src/ per file cost more than most of these files' tests). No global setup: nothing
          // here starts `bench`, so the fast lane alone does not build dist/.
          name: 'fast',
          include: fastFiles,
          isolate: false,
          setupFiles: ['test/lanes/fast-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          // Everything else, each file in its own process: a file not yet in test/lanes.ts runs here
          // (and test/lanes.test.ts fails until it is listed).
          name: 'full',
          include: ['test/**/*.test.ts'],
          exclude: fastFiles,
          globalSetup: ['test/global-setup.ts'],
        },
      },
    ],
  },
});
