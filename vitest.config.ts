import { defineConfig } from 'vitest/config';
import { SlowestFirst } from './test/lanes/slowest-first.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two test files at a time on CI's 2 cores (vitest's default leaves one core idle): the tests wait for
    // events, not times, so a core shared with the other file is slower, not wrong (passed this way loaded and quiet).
    maxWorkers: 2,
    // The slowest files first (test/lanes.ts, SLOWEST), so the two workers finish together.
    sequence: { sequencer: SlowestFirst },
    // Tests wait for events, never for a fixed time; a loaded machine is slow, not wrong.
    expect: { poll: { timeout: 30_000 } },
  },
});
