import type { Role } from '../contracts/chat.ts';
import type { Fired, Stop, StopReason } from '../contracts/stop-reason.ts';

/** What brakes see of a run. Maintained by the ModelCaller; brakes only read it. */
export interface RunState {
  /** Agent steps taken (act/execute calls). */
  steps: number;
  /** All model calls made, whatever their role. */
  calls: number;
  rounds: number;
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  costUsd: number;
  elapsedMs: number;
  /** How often each action fingerprint has been executed. */
  repeats: Map<string, number>;
  /** The actions executed so far, in order, with what they returned. */
  history: ActionOutcome[];
}

/** An executed action and its observation, as the spin detectors compare them. */
export interface ActionOutcome extends Action {
  /** The agent step that proposed it. */
  step: number;
  observation: string;
  /** How it failed (`FileNotFoundError: …`), or null when it did not. */
  failure: string | null;
}

/** The call about to be made, projected before it is sent. */
export interface PendingCall {
  role: Role;
  /** Known: the prompt is counted before it is sent. */
  inputTokens: number;
  /** Worst case for the answer: the request's max_tokens. */
  maxOutputTokens: number;
  /** Cost of the call if it used all of maxOutputTokens, at current prices. */
  projectedCostUsd: number;
}

export interface Action {
  tool: string;
  fingerprint: string;
  /** Canonical JSON of the arguments, or the raw text when it did not parse. */
  argsJson: string;
}

/** A pure check; returns null to let the run go on, or the Stop that ends it. */
export interface Brake {
  readonly name: string;
  beforeCall?(state: RunState, next: PendingCall): Stop | null;
  beforeAction?(state: RunState, action: Action): Stop | null;
  /** Checked before a round-based agent (the task queue) starts its next round. */
  beforeRound?(state: RunState): Stop | null;
}

/** A brake's Stop: the typed fields, and the detail written from them (with the brake's own context). */
export function limitStop(reason: StopReason, fired: Fired, step: number, detail: (f: Fired) => string): Stop {
  return { reason, detail: detail(fired), step, fired };
}

/** Brakes compose as any-of: the first that fires stops the run. */
export function firstStop<A>(brakes: readonly Brake[], check: (b: Brake) => Stop | null | undefined): Stop | null {
  for (const b of brakes) {
    const s = check(b);
    if (s) return s;
  }
  return null;
}

export const isAgentStep = (role: Role) => role === 'act' || role === 'execute';
