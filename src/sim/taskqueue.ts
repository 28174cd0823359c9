// How the sim plays the task queue's roles. Each writer is a pure function of the profile, the seed
// and the request's content (the `## Section` blocks the agent writes), so it behaves the same in
// process and behind `bench serve`.
import {
  listItems,
  numberedList,
  readSections,
  formatCreated,
  type CreatedTask,
  type Sections,
} from '../contracts/taskqueue-format.ts';
import { ModelError, type ChatRequest } from '../contracts/chat.ts';
import { draw } from './behaviour.ts';
import type { Profile } from './profile.ts';
import { hash32, rng, type Rng } from './rng.ts';
import type { SimAnswer } from './answer.ts';
import type { TaskqueueProfile } from './taskqueue-profile.ts';
import { words } from './text.ts';

interface Ctx {
  tq: TaskqueueProfile;
  sections: Sections;
  round: number;
  r: Rng;
  seed: number;
  latencyMs: number;
}

function context(p: Profile, request: ChatRequest, role: string): Ctx {
  if (!p.taskqueue)
    throw new ModelError(`simulated profile '${p.id}' has no taskqueue section, so it cannot play the '${role}' role`);
  const user = [...request.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  const sections = readSections(user);
  const seed = request.seed ?? 0;
  const r = rng(seed, role, hash32(user));
  return {
    tq: p.taskqueue,
    sections,
    round: Number(sections.Round) || 1,
    r,
    seed,
    latencyMs: Math.round(draw(r, p.latency_ms)),
  };
}

const answer = (content: string, latencyMs: number): SimAnswer => ({
  message: { role: 'assistant', content },
  latencyMs,
});
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const between = (r: Rng, [a, b]: readonly [number, number]) => a + Math.floor(r() * (b - a + 1));
const wordCount = (s: string | undefined) => (s ? s.split(/\s+/).filter(Boolean).length : 0);

export function writeExecute(p: Profile, request: ChatRequest): SimAnswer {
  const c = context(p, request, 'execute');
  const { long_result: long, result_tokens } = c.tq.execute;
  const tokens = long && long.round === c.round ? long.tokens : Math.round(draw(c.r, result_tokens));
  return answer(`Result of '${c.sections['Your task'] ?? ''}': ${words(c.r, tokens)}`, c.latencyMs);
}

export function writeCreate(p: Profile, request: ChatRequest): SimAnswer {
  const c = context(p, request, 'create');
  const k = c.tq.create;
  if (k.stop_after_round !== undefined && c.round > k.stop_after_round) return answer('No new tasks.', c.latencyMs);
  // A history long enough to crowd the context makes the creator lose track (the BRIEF's debugging chain).
  const crowded =
    k.crowded && wordCount(c.sections['Results so far']) > k.crowded.history_tokens ? k.crowded : undefined;
  const queue = listItems(c.sections['Current queue']);
  const last = c.sections['Last task'] ?? '';
  const n = between(c.r, crowded?.new_tasks ?? k.new_tasks);
  const dup = crowded?.duplicate_rate ?? k.duplicate_rate;
  const redo = crowded?.redo_rate ?? 0;
  const out: CreatedTask[] = [];
  for (let i = 0; i < n; i++) {
    const u = c.r();
    const linked = (task: string): CreatedTask => ({ task, link: k.link });
    if (u < redo) out.push(linked(last));
    else if (u < redo + dup)
      out.push(linked(`${queue.length ? pick(c.r, queue) : last}${pick(c.r, k.near_duplicate)}`));
    else if (u < redo + dup + k.off_goal_rate) out.push({ task: pick(c.r, k.off_goal), link: null });
    else if (u < redo + dup + k.off_goal_rate + k.split_rate)
      out.push(linked(pick(c.r, k.splits).replace('{task}', last)));
    else {
      // Fresh tasks in turn, numbered by reuse, so every round proposes ones not seen before.
      const idx = (c.round - 1) * k.new_tasks[1] + i;
      out.push(linked(k.tasks[idx % k.tasks.length]!.replaceAll('{n}', String(Math.floor(idx / k.tasks.length) + 1))));
    }
  }
  return answer(out.length ? out.map((t) => `- ${formatCreated(t)}`).join('\n') : 'No new tasks.', c.latencyMs);
}

export function writePrioritize(p: Profile, request: ChatRequest): SimAnswer {
  const c = context(p, request, 'prioritize');
  const tasks = listItems(c.sections.Tasks);
  if (c.r() < c.tq.prioritize.malformed_rate)
    return answer(
      `The most important task is probably '${tasks[0] ?? ''}'; the others can wait until it is done.`,
      c.latencyMs,
    );
  // Each task has a fixed priority per run, so the order is stable from round to round.
  const score = (t: string) => hash32(`${c.seed}:${t}`);
  return answer(numberedList([...tasks].sort((a, b) => score(a) - score(b))), c.latencyMs);
}

export function writeSummarize(p: Profile, request: ChatRequest): SimAnswer {
  const c = context(p, request, 'summarize');
  return answer(`Summary: ${words(c.r, Math.round(draw(c.r, c.tq.summarize.summary_tokens)))}`, c.latencyMs);
}
