import type { ToolSpec } from './chat.ts';

/** A tool the agent may call. `run` returns the observation text (errors included: it never throws for bad input). */
export interface Tool {
  readonly spec: ToolSpec;
  /** Simulated duration, added to the virtual clock of simulated runs. */
  readonly virtualMs: number;
  run(args: Record<string, unknown>, signal?: AbortSignal): Promise<string>;
}
