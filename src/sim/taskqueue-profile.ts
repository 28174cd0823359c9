// How a simulated model plays the task queue's roles: data in a profile's `taskqueue:` section.
import { z } from 'zod';
import { Dist, MAX_DRAWN_TOKENS } from '../contracts/dist.ts';

const Rate = z.number().min(0).max(1);
/** Tasks per round and round numbers: a queue beyond these is no run anyone waits for. */
const Count = z.number().int().nonnegative().max(1000);
const RoundNumber = z.number().int().positive().max(1_000_000);
const Range = z.tuple([Count, Count]).refine(([a, b]) => a <= b, 'the range [min, max] is empty');

const Execute = z
  .object({
    /** Length of an ordinary execution result. */
    result_tokens: Dist.default({ mean: 120, sd: 20, min: 30 }),
    /** One over-long result (a page pasted whole): at this round, this many tokens. */
    long_result: z
      .object({ round: RoundNumber, tokens: z.number().int().positive().max(MAX_DRAWN_TOKENS) })
      .strict()
      .optional(),
  })
  .strict();

/** When the history the creator reads passes `history_tokens`, it loses track: more twins, done tasks proposed again. */
const Crowded = z
  .object({
    history_tokens: z
      .number()
      .int()
      .positive()
      .max(100 * MAX_DRAWN_TOKENS),
    new_tasks: Range.optional(),
    duplicate_rate: Rate,
    /** Share of new tasks that re-propose a task already done (the loop of the debugging chain). */
    redo_rate: Rate.default(0),
  })
  .strict();

const Create = z
  .object({
    /** New tasks per round, drawn uniformly from [min, max]. */
    new_tasks: Range.default([2, 4]),
    /** From this round on the creator proposes nothing (a converging model); absent: never stops. */
    stop_after_round: z.number().int().nonnegative().max(1_000_000).optional(),
    /** Shares of new tasks that near-duplicate a queued task, drift off the goal, or split the current task finer. */
    duplicate_rate: Rate.default(0),
    off_goal_rate: Rate.default(0),
    split_rate: Rate.default(0),
    /** Fresh on-goal tasks, used in turn; {n} numbers a task's reuse. */
    tasks: z.array(z.string().min(1)).min(1),
    /** Off-goal tasks come without a stated link to the goal (goal anchoring drops them). */
    off_goal: z
      .array(z.string().min(1))
      .default(["Tidy the previous output's format", 'Double-check the wording of the notes so far']),
    /** Endings that turn a queued task into a near-twin. */
    near_duplicate: z.array(z.string().min(1)).default([' in more detail', ' again', ' more carefully']),
    /** Finer splits of the current task; {task} is the task split. */
    splits: z
      .array(z.string().includes('{task}'))
      .default(['Confirm a detail of: {task}', 'Split into smaller steps: {task}']),
    /** The stated link to the goal, written after each on-goal task. */
    link: z.string().min(1).default('it brings the goal closer'),
    crowded: Crowded.optional(),
  })
  .strict();

const Prioritize = z
  .object({
    /** Share of answers that do not parse as one task per line (the agent keeps the old order). */
    malformed_rate: Rate.default(0),
  })
  .strict();

const Summarize = z.object({ summary_tokens: Dist.default({ mean: 150, sd: 20, min: 40 }) }).strict();

export const TaskqueueProfile = z
  .object({
    execute: Execute.default(Execute.parse({})),
    create: Create,
    prioritize: Prioritize.default(Prioritize.parse({})),
    summarize: Summarize.default(Summarize.parse({})),
  })
  .strict();
export type TaskqueueProfile = z.infer<typeof TaskqueueProfile>;
