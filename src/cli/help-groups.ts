// `bench run --help` and `bench check --help` list their options in groups a reader can scan (the
// sweep, brakes, models, task queue, reflection and context, pricing, running, output) instead of
// one list of 140 lines. Grouped here, after every option is declared, by the option's flag; the
// brakes come from the table of brakes. An option no group names lands in "Other options:", which
// test/help-groups.test.ts refuses, so a new flag gets a group when it is added.
import type { Command } from 'commander';
import { LIMITS } from '../contracts/limits.ts';

export const OTHER = 'Other options:';

const GROUPS: Array<[heading: string, flags: readonly string[]]> = [
  ['The sweep:', ['--scenario', '--repeat', '--precision', '--seed', '--agent-cmd']],
  [
    'Brakes (each takes a list, a range like 5..30:5, or off; the sweep runs every combination):',
    [...LIMITS.map((d) => d.flag), '--max-output-tokens'],
  ],
  ['Models and connection:', ['--model', '--base-url', '--request-timeout', '--max-retries', '--record', '--replay']],
  [
    'Task queue (task-queue scenarios only):',
    [
      '--queue-cap',
      '--dedup',
      '--anchor',
      '--max-result-tokens',
      '--compress-at',
      '--role-model',
      '--trace',
      '--pause-at',
      '--resume-state',
    ],
  ],
  ['Reflection and context:', ['--reflection', '--max-reflections', '--context']],
  ['Pricing:', ['--pricing', '--price-model', '--price-in', '--price-out', '--price-cached', '--prompt-cache']],
  ['Running:', ['--concurrency', '--workers', '--shard', '--ci-max-spend', '--resume']],
  ['Output:', ['--out', '--force', '--quiet', '--json', '--no-transcripts', '--otlp-endpoint', '--otlp-protocol']],
];

const GROUP_OF = new Map(GROUPS.flatMap(([heading, flags]) => flags.map((f) => [f, heading] as const)));

/** Puts each of the command's options under its heading; `extra` groups the command's own flags. */
export function groupOptions(cmd: Command, extra: Record<string, string> = {}): Command {
  const order = [...new Set([...Object.values(extra), ...GROUPS.map(([heading]) => heading), OTHER])];
  const headingOf = (o: Command['options'][number]) => extra[o.long ?? ''] ?? GROUP_OF.get(o.long ?? '') ?? OTHER;
  for (const o of cmd.options) o.helpGroup(headingOf(o));
  // Help lists the groups in the order their first option was declared: put them in reading order
  // (a stable sort, so each group keeps its options' order; parsing does not depend on it).
  (cmd.options as Array<Command['options'][number]>).sort(
    (a, b) => order.indexOf(headingOf(a)) - order.indexOf(headingOf(b)),
  );
  return cmd;
}
