// The defaults of the sweep flags (the limits' are in the table of brakes, src/contracts/limits.ts), shared by `bench run`, the budgets file of `bench check` and
// sweeps started from code (src/serve/sweep-against.ts).
import { DEFAULT_TRANSPORT } from '../models/factory.ts';

export const RUN_DEFAULTS = {
  model: 'sim',
  repeat: '10',
  seed: '1',
  concurrency: '4',
  promptCache: 'off',
  maxOutputTokens: '1024',
  requestTimeout: String(DEFAULT_TRANSPORT.timeoutMs / 1000),
  maxRetries: String(DEFAULT_TRANSPORT.maxRetries),
} as const;
