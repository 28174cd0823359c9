// The four roles' requests. Each role's system prompt comes from the scenario and names the role
// (the `name` field), the data follows in `## Section` blocks.
import type { ChatMessage } from '../../contracts/chat.ts';
import type { TaskqueueRole, TaskqueueScenario } from '../../scenario/schema.ts';
import { bulletList, numberedList, writeSections } from '../../contracts/taskqueue-format.ts';
import type { QueueState, ResultEntry } from './state.ts';

const entry = (r: ResultEntry) => `- [round ${r.round}] ${r.task}: ${r.result}`;

/** What earlier rounds produced: the summary (once compressed), then the results after it, up to `upTo`. */
export function history(st: QueueState, upTo = st.results.length): string {
  const parts: string[] = [];
  if (st.summary) parts.push(`Summary of rounds so far: ${st.summary}`);
  for (const r of st.results.slice(st.summarized, upTo)) parts.push(entry(r));
  return parts.length ? parts.join('\n') : '(none)';
}

function request(s: TaskqueueScenario, role: TaskqueueRole, sections: Record<string, string>): ChatMessage[] {
  return [
    { role: 'system', name: role, content: s.prompts[role] },
    { role: 'user', content: writeSections(sections) },
  ];
}

export function executeRequest(s: TaskqueueScenario, st: QueueState, round: number, task: string): ChatMessage[] {
  return request(s, 'execute', {
    Round: String(round),
    Goal: s.goal,
    'Results so far': history(st),
    'Your task': task,
  });
}

/** Task creation sees the history before the last result, the last result itself, and the queue. */
export function createRequest(s: TaskqueueScenario, st: QueueState, round: number): ChatMessage[] {
  const last = st.results[st.results.length - 1]!;
  return request(s, 'create', {
    Round: String(round),
    Goal: s.goal,
    'Results so far': history(st, st.results.length - 1),
    'Last task': last.task,
    'Last result': last.result,
    'Current queue': bulletList(st.queue),
  });
}

export function prioritizeRequest(s: TaskqueueScenario, queue: readonly string[], round: number): ChatMessage[] {
  return request(s, 'prioritize', { Round: String(round), Goal: s.goal, Tasks: numberedList(queue) });
}

/** Compression: the previous summary and the results before the last one, to be folded into one summary. */
export function summarizeRequest(s: TaskqueueScenario, st: QueueState, round: number): ChatMessage[] {
  return request(s, 'summarize', { Round: String(round), Goal: s.goal, Results: history(st, st.results.length - 1) });
}
