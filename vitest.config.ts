import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Tests wait for events, never for a fixed time; a loaded machine is slow, not wrong.
    expect: { poll: { timeout: 30_000 } },
  },
});
