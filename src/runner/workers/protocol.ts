// Messages between the sweep (main thread) and its worker threads. Plans and records are plain data
// (structured clone); a run's step lines travel as the UTF-8 bytes the main thread appends to
// steps.jsonl (a string was cloned twice, then encoded), copied rather than transferred (line-bytes.ts).
import type { RunRecord } from '../../contracts/records.ts';
import type { RunDeps } from '../run-one.ts';
import type { RunPlan } from '../sweep.ts';
import type { Transcript } from '../transcript.ts';

/** What every worker gets once: how to build its models. */
export interface WorkerSetup {
  /** `--replay`: the cassette file, loaded once per worker. */
  replayFile?: string;
  control?: RunDeps['control'];
  transcripts: boolean;
  /** o200k_base's rank table in shared memory (tokens.ts sharedRanks): every thread counts against the one copy. */
  ranks: Uint8Array;
}

export type ToWorker = { type: 'run'; id: number; plan: RunPlan } | { type: 'abort' };

export type FromWorker =
  | { type: 'done'; id: number; steps: Uint8Array; record: RunRecord; transcript?: Transcript }
  | { type: 'failed'; id: number; message: string; stack?: string };
