// One round of the task queue as runs.jsonl keeps it (extra.rounds), for the loop that writes it and --trace.

/** One round as the records keep it, so a run can be replayed round by round. */
export interface RoundLog {
  round: number;
  task: string;
  /** Tokens of the execution result as the model wrote it (before any cap). */
  result_tokens: number;
  created: number;
  accepted: number;
  /** Queue length at the end of the round. */
  queue_length: number;
  queue: string[];
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
}
