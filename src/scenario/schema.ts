// A scenario is a fixed goal the harness replays: prompt, tools, how the answer is checked, and the
// simulated profile that stands in for a model by default.
import { z } from 'zod';
import { Dist } from '../contracts/dist.ts';
import { compilePattern } from './pattern.ts';

const Id = z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lower-case letters, digits and dashes');

const PythonTool = z
  .object({
    name: z.literal('run_python'),
    kind: z.literal('python'),
    timeout_s: z.number().positive().max(600).default(10),
    max_output_chars: z.number().int().positive().max(1_000_000).default(2000),
    /** Address-space limit of the interpreter (ulimit -v). */
    max_memory_mb: z.number().int().min(64).max(65_536).default(1024),
    virtual_ms: z.number().nonnegative().default(500),
    /** Variables of bench's environment the code may see besides the allow-list (PATH, HOME, LANG, ...). */
    env: z
      .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a variable name'))
      .max(64)
      .optional(),
  })
  .strict();

const ScriptedTool = z
  .object({
    name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'a function name: letters, digits, _ or -, at most 64'),
    kind: z.literal('scripted'),
    description: z.string().min(1),
    parameters: z.record(z.string(), z.unknown()).default({ type: 'object', properties: {} }),
    /** Size of each result in tokens (a number, or {mean, sd}). */
    result_tokens: Dist,
    header: z.string().optional(),
    /** Status lines that successive identical calls in one run end with, in order (the last one repeats):
     *  a long job that moves on while the agent polls it. */
    progress: z.array(z.string().min(1)).min(2).optional(),
    virtual_ms: z.number().nonnegative().default(300),
  })
  .strict();

export const ToolDecl = z.discriminatedUnion('kind', [PythonTool, ScriptedTool]);
export type ToolDecl = z.infer<typeof ToolDecl>;

const Check = z.union([
  z.object({ expected: z.string().min(1) }).strict(),
  z.object({ pattern: z.string().min(1) }).strict(),
]);
export type Check = z.infer<typeof Check>;

const Common = {
  id: Id,
  description: z.string().min(1),
  goal: z.string().trim().min(1, 'the goal must not be empty'),
  /** Default simulated profile (data/profiles/<id>.yaml) for `--model sim`. */
  profile: Id,
};

const ReactScenario = z
  .object({
    ...Common,
    agent: z.literal('react'),
    system: z.string().min(1),
    tools: z.array(ToolDecl).default([]),
    check: Check.optional(),
  })
  .strict();

/** The task queue's roles, each its own model call with its own prompt. */
export const TASKQUEUE_ROLES = ['execute', 'create', 'prioritize', 'summarize'] as const;
export type TaskqueueRole = (typeof TASKQUEUE_ROLES)[number];
const Prompt = z.string().trim().min(1, 'the prompt must not be empty');
const ModelSpec = z.string().min(1);

const TaskqueueScenario = z
  .object({
    ...Common,
    agent: z.literal('taskqueue'),
    /** System prompt of each role. */
    prompts: z.object({ execute: Prompt, create: Prompt, prioritize: Prompt, summarize: Prompt }).strict(),
    initial_tasks: z.array(z.string().trim().min(1)).min(1, 'give at least one task'),
    /** A model per role (e.g. a cheaper one for execution); overridden by --role-model. */
    models: z
      .object({ execute: ModelSpec, create: ModelSpec, prioritize: ModelSpec, summarize: ModelSpec })
      .partial()
      .strict()
      .default({}),
    /** Kept so every scenario has `tools`; the execution role calls none yet. */
    tools: z.array(ToolDecl).max(0, "the task queue's execution role uses no tools yet").default([]),
    /** Typed like a react scenario's, but refused: a task-queue run has no final answer to check. */
    check: z.undefined({ error: 'a task-queue run has no final answer to check' }).optional(),
  })
  .strict();

/** `agent` defaults to react, so older scenario files stay valid; each agent's fields stay strict. */
export const ScenarioSchema = z
  .preprocess(
    (v) => (v !== null && typeof v === 'object' && !Array.isArray(v) && !('agent' in v) ? { ...v, agent: 'react' } : v),
    z.discriminatedUnion('agent', [ReactScenario, TaskqueueScenario]),
  )
  .superRefine((s, ctx) => {
    if (s.agent !== 'react') return;
    const seen = new Set<string>();
    s.tools.forEach((t, i) => {
      if (seen.has(t.name))
        ctx.addIssue({ code: 'custom', path: ['tools', i, 'name'], message: `duplicate tool name '${t.name}'` });
      seen.add(t.name);
    });
    if (s.check && 'pattern' in s.check) {
      const re = compilePattern(s.check.pattern);
      if (typeof re === 'string') ctx.addIssue({ code: 'custom', path: ['check', 'pattern'], message: re });
    }
  });

type Parsed = z.infer<typeof ScenarioSchema>;
export type Scenario = Parsed & { file: string };
export type TaskqueueScenario = Extract<Parsed, { agent: 'taskqueue' }> & { file: string };
