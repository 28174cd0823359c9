// How a simulated model plays the critic (role `reflect`) of an outer reflection loop: data in a
// profile's `critic:` section. Success is still measured by the scenario's check, never assumed.
import { z } from 'zod';
import { Dist } from '../contracts/dist.ts';

const Rate = z.number().min(0).max(1);
const Texts = (first: string) => z.array(z.string().min(1)).min(1).default([first]);

export const CriticProfile = z
  .object({
    /** P(APPROVE | the answer under review is correct); otherwise it reopens the answer. */
    approve_correct: Rate.default(0.8),
    /** When it reopens a correct answer: P(its objection talks the agent into a wrong one). */
    flip_correct: Rate.default(0.3),
    /** P(REVISE | the answer is wrong); a caught wrong answer is revised to a correct one. */
    catch_wrong: Rate.default(0.5),
    /** Length of the free text after the verdict. */
    critique_tokens: Dist.default({ mean: 50, sd: 10, min: 10 }),
    /** Actions the agent takes after a REVISE before it answers again (its action list, continued). */
    revision_actions: z.number().int().nonnegative().max(1000).default(1),
    /** What the critic writes after APPROVE. */
    approve: Texts('The answer follows from the observations and meets the goal.'),
    /** Objections that turn a correct answer into a wrong one. */
    flip: Texts(
      'The goal can be read differently; under that reading the result is not this one. Recompute it that way.',
    ),
    /** Objections that catch a wrong answer. */
    catch: Texts('The answer does not match what the observations show. Recompute it and check it.'),
    /** Objections that reopen a correct answer which stays correct. */
    nitpick: Texts('The answer looks right, but state how it was verified before you give it again.'),
    /** Notes on a step (every-step reflection). */
    step: Texts('The step is reasonable; keep the next one focused on the goal.'),
  })
  .strict();
export type CriticProfile = z.infer<typeof CriticProfile>;
