// budgets.yaml: what `bench check` runs (scenarios with the prompt under test, model, repeats, the
// brakes) and the budgets each scenario must hold.
import { z } from 'zod';
import { STOP_REASONS } from '../contracts/stop-reason.ts';
import { LIMITS, fieldName, limitValue } from '../contracts/limits.ts';

const Id = z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lower-case letters, digits and dashes');

/** Each brake's field: a value its row of the table of brakes accepts, or `off`. */
const limitFields = Object.fromEntries(
  LIMITS.map((d) => [fieldName(d), z.union([limitValue(d.rule), z.literal('off')]).optional()]),
);

/** Upper bounds on one per-run metric, by statistic over the scenario's runs. */
const Bound = z
  .object({
    max: z.number().nonnegative(),
    mean: z.number().nonnegative(),
    p50: z.number().nonnegative(),
    p95: z.number().nonnegative(),
  })
  .partial()
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'give at least one of max, mean, p50, p95');

export const METRICS = ['steps', 'calls', 'input_tokens', 'output_tokens', 'total_tokens', 'cost_usd'] as const;
export type Metric = (typeof METRICS)[number];
export const STATS = ['max', 'mean', 'p50', 'p95'] as const;
export type Stat = (typeof STATS)[number];

const Assertions = z
  .object({
    /** Every run must stop with one of these reasons (checked at load against the closed set: a typo would fail every run). */
    stop_reason: z.array(z.enum(STOP_REASONS)).min(1).optional(),
    /** The 95% Wilson lower bound of the success rate must reach `min` (adaptive repeats: the sequential test must show it). */
    success_rate: z
      .object({ min: z.number().min(0).max(1) })
      .strict()
      .optional(),
    // One bound per metric of METRICS (the `satisfies` below keeps the two lists the same).
    steps: Bound.optional(),
    calls: Bound.optional(),
    input_tokens: Bound.optional(),
    output_tokens: Bound.optional(),
    total_tokens: Bound.optional(),
    cost_usd: Bound.optional(),
  } satisfies Record<Metric, unknown> & Record<'stop_reason' | 'success_rate', unknown>)
  .strict();

export type AssertionsSpec = z.infer<typeof Assertions>;

/** `10%` or 0.10: a relative increase for cost and tokens; for success, a drop in percentage points. */
const Fraction = z.union([
  z.number().nonnegative(),
  z
    .string()
    .regex(/^\d+(\.\d+)?%$/, "a fraction like 0.1 or a percentage like '10%'")
    .transform((s) => Number(s.slice(0, -1)) / 100),
]);

export const MaxRegression = z.object({ cost: Fraction, tokens: Fraction, success: Fraction }).partial().strict();
export type MaxRegression = z.infer<typeof MaxRegression>;

const ScenarioEntry = z
  .object({
    /** A shipped scenario id or a path to a scenario file (relative to budgets.yaml). */
    scenario: z.string().min(1),
    /** Run it under another id (to check two prompts of one scenario side by side). */
    id: Id.optional(),
    /** The prompt under test: replaces the scenario's system prompt / goal, inline or from a file. */
    system: z.string().trim().min(1).optional(),
    system_file: z.string().min(1).optional(),
    goal: z.string().trim().min(1).optional(),
    goal_file: z.string().min(1).optional(),
    assertions: Assertions,
    max_regression: MaxRegression.optional(),
  })
  .strict()
  .superRefine((e, ctx) => {
    if (e.system !== undefined && e.system_file !== undefined)
      ctx.addIssue({ code: 'custom', path: ['system_file'], message: 'give system or system_file, not both' });
    if (e.goal !== undefined && e.goal_file !== undefined)
      ctx.addIssue({ code: 'custom', path: ['goal_file'], message: 'give goal or goal_file, not both' });
  });
export type ScenarioEntry = z.infer<typeof ScenarioEntry>;

/** Adaptive repeats: batches of runs until every budget is decided at `confidence`, or `max` runs. */
export const AdaptiveRepeats = z
  .object({
    min: z.number().int().min(2).max(100_000),
    max: z.number().int().min(2).max(100_000),
    batch: z.number().int().min(1).max(100_000),
    /** Each decision's confidence c: a scenario exactly at a budget passes it with probability ≤ 1 − c, and fails it with ≤ 1 − c, over all looks. */
    confidence: z.number().min(0.5).max(0.999).default(0.95),
  })
  .strict()
  .refine((r) => r.max >= r.min, { path: ['max'], message: 'must be at least min' });
export type AdaptiveRepeats = z.infer<typeof AdaptiveRepeats>;

const FixedRepeats = z
  .number({
    error: (i) =>
      i.code === 'invalid_type' ? 'a whole number of runs, or { min, max, batch } for adaptive repeats' : undefined,
  })
  .int()
  .min(1)
  .max(100_000);
/** A count or an adaptive object, each with its own errors (a plain union would only say "Invalid input"). */
const Repeats = z
  .unknown()
  .optional()
  .transform((v, ctx): number | AdaptiveRepeats => {
    if (v === undefined) return 10;
    const parsed = (typeof v === 'object' && v !== null ? AdaptiveRepeats : FixedRepeats).safeParse(v);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
    return z.NEVER;
  });

export const BudgetsSchema = z
  .object({
    /** `sim`, `sim:<profile>`, `openai:<model>`, `replay:<cassette>`. */
    model: z.string().min(1).default('sim'),
    /** Gate your own agent: this command runs as the agent of every run (as `bench run --agent-cmd`), from the working directory. */
    agent_cmd: z.string().trim().min(1).optional(),
    /** Runs per scenario: a fixed count, or `{ min, max, batch, confidence }` to stop once decided. */
    repeats: Repeats,
    seed: z.number().int().min(0).default(1),
    /** The brakes every run gets, as the bench flags of the same names. */
    limits: z.object(limitFields).strict().default({}),
    /** Price the tokens as this model of data/pricing.yaml. */
    price_model: z.string().min(1).optional(),
    max_output_tokens: z.number().int().min(1).max(1_000_000).optional(),
    max_regression: MaxRegression.default({}),
    scenarios: z.array(ScenarioEntry).min(1, 'name at least one scenario'),
  })
  .strict();
export type Budgets = z.infer<typeof BudgetsSchema>;
