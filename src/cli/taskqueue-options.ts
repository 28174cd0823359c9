// The task queue's flags (declared here; what they mean is src/runner/taskqueue-plan.ts).
import type { Command } from 'commander';
import { TASKQUEUE_ROLES } from '../scenario/schema.ts';
import { TASKQUEUE_FLAG_DEFAULTS as DEFAULTS } from '../runner/taskqueue-plan.ts';

export function addTaskqueueOptions(cmd: Command): Command {
  return cmd
    .option(
      '--queue-cap <list>',
      'task queue: keep the top N tasks after prioritization, log the cut; list or off',
      DEFAULTS.queueCap,
    )
    .option(
      '--dedup <list>',
      'task queue: drop a new task whose string similarity (0..1) to a queued or done one reaches this; list or off',
      DEFAULTS.dedup,
    )
    .option(
      '--anchor <list>',
      'task queue: goal anchoring, drop created tasks with no stated link to the goal: on, off or on,off',
      DEFAULTS.anchor,
    )
    .option(
      '--max-result-tokens <list>',
      'task queue: cut each execution result to N tokens before it is stored; list or off',
      DEFAULTS.maxResultTokens,
    )
    .option(
      '--compress-at <list>',
      "task queue: summarise the result history before task creation when the prompt passes N tokens; auto = half the priced model's context window; list, auto or off",
      DEFAULTS.compressAt,
    )
    .option(
      '--role-model <role=spec,...>',
      `task queue: a model per role (${TASKQUEUE_ROLES.join(', ')}), e.g. execute=sim:babyagi-converging; overrides the scenario's models:`,
    )
    .option(
      '--trace',
      "task queue: print each round's task, result and queue (and every queue decision) on stderr as it runs",
    )
    .option(
      '--pause-at <round>',
      'task queue: stop each run after this round and write its state to <results>/state/<run_id>.json',
    )
    .option(
      '--resume-state <file>',
      'task queue: continue from a state file written by --pause-at (its queue may be edited)',
    );
}
