import type { ToolSpec } from './chat.ts';

/** A tool the agent may call. `run` returns the observation text (errors included: it never throws for bad input). */
export interface Tool {
  readonly spec: ToolSpec;
  /** Simulated duration, added to the virtual clock of simulated runs. */
  readonly virtualMs: number;
  /** `call.repeat`: how often this run has executed this exact call, this one included (1 the first time). */
  run(args: Record<string, unknown>, signal?: AbortSignal, call?: { repeat: number }): Promise<string>;
}
