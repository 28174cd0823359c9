// The Agent Trajectory Interchange Format (ATIF, Harbor RFC 0001, v1.0–v1.7): one JSON object per
// run. Only the fields loopbench reads are checked strictly; everything else is kept as the format
// allows (`extra`, newer optional fields), so a trajectory from a newer writer still imports.
import { z } from 'zod';
import { CallCostSchema as Cost, TokenCountSchema as Count } from '../contracts/counts.ts';

/** A trajectory's totals: sums of calls, still exact integers. */
const Total = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const Obj = z.record(z.string(), z.unknown());

export const AtifToolCall = z.looseObject({
  tool_call_id: z.string(),
  function_name: z.string().min(1),
  arguments: z.union([Obj, z.string()]),
});
export type AtifToolCall = z.infer<typeof AtifToolCall>;

export const AtifMetrics = z.looseObject({
  /** All input tokens of the call, cached ones included (v1.2 made this explicit). */
  prompt_tokens: Count.optional(),
  completion_tokens: Count.optional(),
  /** The cached subset of prompt_tokens. */
  cached_tokens: Count.optional(),
  cost_usd: Cost.optional(),
  extra: Obj.optional(),
});
export type AtifMetrics = z.infer<typeof AtifMetrics>;

const ObservationResult = z.looseObject({
  source_call_id: z.string().nullish(),
  content: z.string().nullish(),
  subagent_trajectory_ref: z
    .array(z.looseObject({ session_id: z.string(), trajectory_path: z.string().nullish() }))
    .nullish(),
});

export const AtifStep = z.looseObject({
  step_id: z.number().int(),
  timestamp: z.string().nullish(),
  source: z.enum(['system', 'user', 'agent']),
  model_name: z.string().nullish(),
  message: z.union([z.string(), z.array(z.unknown())]).nullish(),
  reasoning_content: z.string().nullish(),
  tool_calls: z.array(AtifToolCall).nullish(),
  observation: z.looseObject({ results: z.array(ObservationResult) }).nullish(),
  metrics: AtifMetrics.nullish(),
  extra: Obj.nullish(),
});
export type AtifStep = z.infer<typeof AtifStep>;

export const AtifTrajectory = z.looseObject({
  schema_version: z.string().regex(/^ATIF-v1\.\d+$/, 'expected "ATIF-v1.x"'),
  session_id: z.string().min(1),
  agent: z.looseObject({
    name: z.string().min(1),
    version: z.string().nullish(),
    model_name: z.string().nullish(),
    extra: Obj.nullish(),
  }),
  steps: z.array(AtifStep).min(1),
  notes: z.string().nullish(),
  final_metrics: z
    .looseObject({
      total_prompt_tokens: Total.nullish(),
      total_completion_tokens: Total.nullish(),
      total_cached_tokens: Total.nullish(),
      total_cost_usd: z.number().nonnegative().nullish(),
      total_steps: Total.nullish(),
      extra: Obj.nullish(),
    })
    .nullish(),
  extra: Obj.nullish(),
});
export type AtifTrajectory = z.infer<typeof AtifTrajectory>;

/** A trajectory without its steps: what a first pass over a large file reads and checks. */
export const AtifHeader = AtifTrajectory.omit({ steps: true });
export type AtifHeader = z.infer<typeof AtifHeader> & { steps?: AtifStep[] };

/** A step extra flag: its tool calls' arguments were not recorded, so the actions have no fingerprint. */
export const ARGUMENTS_UNKNOWN = 'loopbench_arguments_unknown';

/** A trajectory extra flag: it holds no times (a message list), so its run's clock is unknown, not 0. */
export const NO_CLOCK = 'loopbench_no_clock';

/** Tool-call arguments as ATIF keeps them: the JSON object, or the raw text when it is not one. */
export function atifArguments(text: string): Record<string, unknown> | string {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : text;
  } catch {
    return text;
  }
}

/** The version loopbench writes. */
export const ATIF_VERSION = 'ATIF-v1.6';
