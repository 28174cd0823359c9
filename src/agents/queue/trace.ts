// What `--trace` prints: each round's task, latest result and queue, and the key decisions.
import type { RoundLog } from './round-log.ts';
import type { QueueEvent } from './constraints.ts';

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** The end of a round; its first line (the task) was printed when the round started. */
export function traceRound(r: RoundLog, result: string): string {
  const queue = r.queue.map((t, i) => `    ${i + 1}. ${t}`).join('\n') || '    (empty)';
  return [
    `  result (${r.result_tokens} tokens): ${clip(result.replace(/\s+/g, ' '), 160)}`,
    `  created ${r.created}, kept ${r.accepted}; queue ${r.queue_length}:`,
    queue,
  ].join('\n');
}

export function describeEvent(e: QueueEvent): string {
  switch (e.kind) {
    case 'anchor':
      return `anchor: dropped '${e.task}' (no stated link to the goal)`;
    case 'dedup':
      return `dedup: dropped '${e.task}' (similarity ${e.similarity} to '${e.twin}')`;
    case 'cap':
      return `cap ${e.cap}: cut ${e.cut.length} task(s): ${e.cut.map((t) => `'${t}'`).join(', ')}`;
    case 'prioritize_fallback':
      return `prioritize: answer did not parse (${e.reason}); kept the old order`;
    case 'result_cap':
      return `result cap: '${e.task}' result cut from ${e.tokens} to ${e.kept} tokens`;
    case 'compress':
      return `compress: create prompt ${e.prompt_tokens} tokens > ${e.threshold}; summarised ${e.results} result(s)`;
  }
}
