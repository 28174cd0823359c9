// The task queue's shared state: the queue and the structured result store. It is what `--pause-at`
// writes and `--resume-state` reads back (a person may edit the queue in between), so it has a schema.
import { z } from 'zod';

export const ResultEntry = z
  .object({
    task: z.string(),
    result: z.string(),
    round: z.number().int().positive(),
    timestamp: z.string(),
  })
  .strict();
export type ResultEntry = z.infer<typeof ResultEntry>;

const Totals = z
  .object({
    steps: z.number().int().nonnegative(),
    calls: z.number().int().nonnegative(),
    input_tokens: z.number().int().nonnegative(),
    output_tokens: z.number().int().nonnegative(),
    cached_tokens: z.number().int().nonnegative(),
    // Absent from states written before they were kept: the resumed run counts them from 0.
    cache_write_tokens: z.number().int().nonnegative().optional(),
    cache_write_1h_tokens: z.number().int().nonnegative().optional(),
    reasoning_tokens: z.number().int().nonnegative().optional(),
    cost_usd: z.number().nonnegative(),
  })
  .strict();
export type Totals = z.infer<typeof Totals>;

export const QueueState = z
  .object({
    format: z.literal('loopbench-taskqueue-state/1'),
    scenario: z.string().min(1),
    /** Rounds completed. */
    round: z.number().int().nonnegative(),
    queue: z.array(z.string().trim().min(1)),
    results: z.array(ResultEntry),
    /** Summary of the first `summarized` results, once context compression has run. */
    summary: z.string().nullable(),
    summarized: z.number().int().nonnegative(),
    /** What the run had spent when it paused (the run record's figures, from the ledger), so budgets hold across the pause. */
    totals: Totals,
  })
  .strict()
  .refine((s) => s.summarized <= s.results.length, {
    path: ['summarized'],
    message: 'cannot exceed the number of results',
  });
export type QueueState = z.infer<typeof QueueState>;
