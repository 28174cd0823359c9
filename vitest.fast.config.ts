// The fast lane (npm run test:fast): the in-process test files listed in test/lanes.ts, with no child
// process allowed (test/lanes/fast-setup.ts). No global setup: nothing here starts `bench`, so the
// bundle in dist/ is not built.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';
import { FAST } from './test/lanes.ts';

export default defineConfig({
  test: {
    ...base.test,
    include: FAST.map((f) => `test/${f}`),
    globalSetup: [],
    isolate: false,
    setupFiles: ['test/lanes/fast-setup.ts'],
  },
});
