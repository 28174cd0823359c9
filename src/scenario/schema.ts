// A scenario is a fixed goal the harness replays: prompt, tools, how the answer is checked, and the
// simulated profile that stands in for a model by default.
import { z } from 'zod';
import { Dist } from '../models/sim/profile.ts';

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

export const ScenarioSchema = z
  .object({
    id: Id,
    description: z.string().min(1),
    agent: z.enum(['react']).default('react'),
    system: z.string().min(1),
    goal: z.string().trim().min(1, 'the goal must not be empty'),
    tools: z.array(ToolDecl).default([]),
    check: Check.optional(),
    /** Default simulated profile (data/profiles/<id>.yaml) for `--model sim`. */
    profile: Id,
  })
  .strict()
  .superRefine((s, ctx) => {
    const seen = new Set<string>();
    s.tools.forEach((t, i) => {
      if (seen.has(t.name)) ctx.addIssue({ code: 'custom', path: ['tools', i, 'name'], message: `duplicate tool name '${t.name}'` });
      seen.add(t.name);
    });
    if (s.check && 'pattern' in s.check) {
      try {
        new RegExp(s.check.pattern);
      } catch (e) {
        ctx.addIssue({ code: 'custom', path: ['check', 'pattern'], message: `not a valid regular expression (${(e as Error).message})` });
      }
    }
  });

export type Scenario = z.infer<typeof ScenarioSchema> & { file: string };
