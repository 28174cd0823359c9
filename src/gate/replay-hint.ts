// What to do about a replay miss: the cassette is stale (the prompt, tools or a setting changed since
// it was recorded), so record it again against the real model, or check the real model directly.
import type { ReplayMiss } from '../contracts/chat.ts';

export function replayMissHint(o: {
  budgetsFile: string;
  budgetsModel: string;
  misses: readonly ReplayMiss[];
}): string[] {
  const cassette = o.misses[0]!.cassette;
  const recorded = o.misses[0]!.model;
  const scenarios = [...new Set(o.misses.map((m) => m.scenario))];
  const record = `bench check ${o.budgetsFile} --record ${cassette} --ci-max-spend <USD>`;
  const how = o.budgetsModel.startsWith('replay:')
    ? `with the budgets file's model set to ${recorded} (then back to ${o.budgetsModel}), run ${record}`
    : `run ${record}`;
  return [
    `bench check: ${cassette} holds no recorded answer for ${scenarios.length} scenario(s) (${scenarios.join(', ')}): nothing was measured for them, which is not a breach (exit 3).`,
    `  The cassette is stale: ${o.misses[0]!.explanation}.`,
    `  Re-record it against the real model (costs money once; needs OPENAI_API_KEY): ${how}, and commit the cassette;`,
    `  or check the real model directly: bench check ${o.budgetsFile} --ci-max-spend <USD>${o.budgetsModel.startsWith('replay:') ? ` (model: ${recorded})` : ''}.`,
  ];
}
