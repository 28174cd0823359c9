// The queue constraints, each switchable so its effect can be measured: goal anchoring and
// de-duplication when tasks are created, the cap after prioritization. Pure functions; every
// decision they make is returned as an event for the run's log.
import type { CreatedTask } from '../../contracts/taskqueue-format.ts';
import { listItems } from '../../contracts/taskqueue-format.ts';
import { closest } from './similarity.ts';

export type QueueEvent =
  | { round: number; kind: 'anchor'; task: string }
  | { round: number; kind: 'dedup'; task: string; twin: string; similarity: number }
  | { round: number; kind: 'cap'; cap: number; cut: string[] }
  | { round: number; kind: 'prioritize_fallback'; reason: string; answer: string }
  | { round: number; kind: 'result_cap'; task: string; tokens: number; kept: number }
  | { round: number; kind: 'compress'; prompt_tokens: number; threshold: number; results: number };

export interface AdmitOptions {
  /** Similarity at or above which a new task is a twin (null: off). */
  dedup: number | null;
  /** Drop tasks that state no link to the goal. */
  anchor: boolean;
}

/** New tasks that pass anchoring and de-duplication (against the queue, tasks done, and each other). */
export function admitTasks(
  created: readonly CreatedTask[],
  queue: readonly string[],
  done: readonly string[],
  o: AdmitOptions,
  round: number,
): { accepted: string[]; events: QueueEvent[] } {
  const accepted: string[] = [];
  const events: QueueEvent[] = [];
  for (const c of created) {
    if (o.anchor && !c.link) {
      events.push({ round, kind: 'anchor', task: c.task });
      continue;
    }
    if (o.dedup !== null) {
      const near = closest(c.task, [...queue, ...done, ...accepted]);
      if (near && near.score >= o.dedup) {
        events.push({ round, kind: 'dedup', task: c.task, twin: near.twin, similarity: Number(near.score.toFixed(3)) });
        continue;
      }
    }
    accepted.push(c.task);
  }
  return { accepted, events };
}

/** Keep the top `cap` tasks (the queue is in priority order); the rest are cut and logged. */
export function capQueue(
  queue: readonly string[],
  cap: number | null,
  round: number,
): { queue: string[]; event: QueueEvent | null } {
  if (cap === null || queue.length <= cap) return { queue: [...queue], event: null };
  return { queue: queue.slice(0, cap), event: { round, kind: 'cap', cap, cut: queue.slice(cap) } };
}

/**
 * The prioritizer must answer with the same tasks, one per line, in its order. Anything else (prose,
 * a task lost or invented) does not parse, and the caller keeps the old order.
 */
export function parsePriority(
  queue: readonly string[],
  answer: string,
): { ok: true; queue: string[] } | { ok: false; reason: string } {
  const lines = listItems(answer);
  if (lines.length !== queue.length)
    return { ok: false, reason: `expected ${queue.length} task lines, got ${lines.length}` };
  const left = new Map<string, number>();
  for (const t of queue) left.set(t, (left.get(t) ?? 0) + 1);
  for (const l of lines) {
    const n = left.get(l) ?? 0;
    if (n === 0) return { ok: false, reason: `unknown task '${l.slice(0, 80)}'` };
    left.set(l, n - 1);
  }
  return { ok: true, queue: lines };
}
