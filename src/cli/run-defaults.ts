// The defaults of the sweep flags, shared by `bench run` and the budgets file of `bench check`.
export const RUN_DEFAULTS = {
  model: 'sim',
  steps: '12',
  maxCost: '0.5',
  timeout: '120',
  maxRepeat: '3',
  maxTokens: 'off',
  maxCalls: 'off',
  repeat: '10',
  seed: '1',
  concurrency: '4',
  promptCache: 'off',
  maxOutputTokens: '1024',
} as const;
