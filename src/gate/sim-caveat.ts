// What a check on the simulated model can and cannot show. The sim answers by its profile: a
// prompt's length changes what every call costs, but its meaning changes nothing — replacing the
// stop instruction with "never give a final answer" still passes every budget. Said once per check.

/** Whether budgets on this model spec are judged on the simulated model. */
export const isSimulated = (model: string) => model === 'sim' || model.startsWith('sim:');

export const SIM_CAVEAT =
  "model sim: the simulated model follows its profile, not your prompt's meaning. This check shows what the prompt's length does to tokens, cost and steps; " +
  'it cannot show whether a model obeys the prompt (an instruction like "never give a final answer" passes here). ' +
  'To judge whether a new prompt still stops, check it on a real model under --ci-max-spend with --record a cassette, and --replay that cassette in later runs.';
