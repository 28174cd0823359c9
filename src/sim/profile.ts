// A simulated model's behaviour is data: data/profiles/<id>.yaml, validated here.
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { UsageError } from '../contracts/errors.ts';
import { dataPath } from '../contracts/paths.ts';
import { loadYamlFile } from '../scenario/yaml-file.ts';
import { CriticProfile } from './critic-profile.ts';
import { Dist, LatencyDist } from '../contracts/dist.ts';
import { TaskqueueProfile } from './taskqueue-profile.ts';

export { Dist } from '../contracts/dist.ts';

/** Steps are counted one model call each: more than this is no run anyone waits for. */
const MAX_STEPS_TO_DONE = 1_000_000;
const Steps = z.number().int().positive().max(MAX_STEPS_TO_DONE);
const StepsToDone = z.union([
  z.object({ fixed: Steps }).strict(),
  z.object({ uniform: z.tuple([Steps, Steps]) }).strict(),
  z
    .object({
      lognormal: z
        .object({ median: z.number().positive().max(MAX_STEPS_TO_DONE), sigma: z.number().nonnegative().max(10) })
        .strict(),
    })
    .strict(),
]);
export type StepsToDone = z.infer<typeof StepsToDone>;

/** An action the sim writes. String values in args may use {n} (occurrence of this action) and {step}. */
const ActionTemplate = z
  .object({
    tool: z.string().min(1),
    args: z.record(z.string(), z.unknown()).default({}),
    thought: z.string().optional(),
  })
  .strict();
export type ActionTemplate = z.infer<typeof ActionTemplate>;

export const BEHAVIOURS = ['converge', 'perfectionist', 'stuck', 'cycle', 'recursive-verify'] as const;

export const Profile = z
  .object({
    id: z.string().min(1),
    description: z.string().min(1),
    /** converge: act until steps_to_done, then answer. perfectionist: run the plan, then propose
     *  distinct improvements forever. stuck / cycle / recursive-verify: repeat the action list forever. */
    behaviour: z.enum(BEHAVIOURS).optional(),
    steps_to_done: StepsToDone.optional(),
    /** Length of the free-text thought written before each tool call. */
    thought_tokens: Dist.default(40),
    latency_ms: LatencyDist.default(1000),
    /** Share of tool calls whose JSON arguments come out malformed. */
    malformed_args_rate: z.number().min(0).max(1).default(0),
    actions: z.array(ActionTemplate).default([]),
    improvements: z.array(ActionTemplate).default([]),
    /** Final answer; {observation} is the last line of the latest tool result. */
    answer: z.string().default('Done. Result: {observation}'),
    /** Share of runs whose first answer is wrong; a wrong answer reads `wrong_answer` (literal text). */
    answer_error_rate: z.number().min(0).max(1).default(0),
    wrong_answer: z.string().min(1).default('Done. I could not confirm the result, so I give no value.'),
    /** How it plays the critic of an outer reflection loop, and how critiques change its answers. */
    critic: CriticProfile.default(CriticProfile.parse({})),
    /** How it plays the task queue's roles (execute, create, prioritize, summarize). */
    taskqueue: TaskqueueProfile.optional(),
  })
  .strict()
  .superRefine((p, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (!p.behaviour && !p.taskqueue)
      issue('behaviour', 'a profile needs a ReAct behaviour, a taskqueue section, or both');
    if (p.behaviour && p.actions.length === 0) issue('actions', 'a ReAct behaviour needs at least one action');
    if (p.behaviour === 'converge' && !p.steps_to_done) issue('steps_to_done', 'required when behaviour is converge');
    if (p.behaviour === 'perfectionist' && p.improvements.length === 0)
      issue('improvements', 'required when behaviour is perfectionist');
    if (p.behaviour === 'stuck' && p.actions.length !== 1) issue('actions', 'a stuck model repeats exactly one action');
    if (p.behaviour === 'cycle' && p.actions.length < 2) issue('actions', 'a cycle needs at least two actions');
    if (p.behaviour === 'recursive-verify') {
      const varying = p.actions.filter((a) => JSON.stringify(a.args).includes('{n}'));
      if (varying.length === 0 || varying.length === p.actions.length)
        issue(
          'actions',
          'recursive-verify needs a varying action (args with {n}) and a fixed one (the same check every time)',
        );
    }
    if ('uniform' in (p.steps_to_done ?? {})) {
      const [a, b] = (p.steps_to_done as { uniform: [number, number] }).uniform;
      if (a > b) issue('steps_to_done', `uniform range [${a}, ${b}] is empty`);
    }
  });
export type Profile = z.infer<typeof Profile>;

export const profilesDir = () => dataPath('profiles');

export function loadProfileFile(file: string): Profile {
  const p = loadYamlFile(file, Profile);
  const expected = path.basename(file).replace(/\.ya?ml$/, '');
  if (p.id !== expected) throw new UsageError(`${file}: id: '${p.id}' must match the file name '${expected}'`);
  return p;
}

export function listProfiles(): string[] {
  return fs
    .readdirSync(profilesDir())
    .filter((f) => /\.ya?ml$/.test(f))
    .map((f) => f.replace(/\.ya?ml$/, ''))
    .sort();
}

/** By id (data/profiles/<id>.yaml) or by path to a YAML file. */
export function loadProfile(idOrPath: string): Profile {
  if (/[/\\]|\.ya?ml$/.test(idOrPath)) return loadProfileFile(idOrPath);
  const file = path.join(profilesDir(), `${idOrPath}.yaml`);
  if (!fs.existsSync(file))
    throw new UsageError(`unknown simulated profile '${idOrPath}' (known: ${listProfiles().join(', ')})`);
  return loadProfileFile(file);
}
