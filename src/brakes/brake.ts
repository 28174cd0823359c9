import type { Role } from '../contracts/chat.ts';
import type { Fired, Stop, StopReason } from '../contracts/stop-reason.ts';
import { noTotals, type RunTotals } from '../contracts/run-totals.ts';

/** What the brakes read of a run: its totals (kept by the run's ledger), and the actions it ran. */
export interface RunState extends RunTotals {
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

/** A run that has done nothing yet. */
export const newRunState = (): RunState => ({ ...noTotals(), repeats: new Map(), history: [] });

/**
 * The action brakes (spin) on an action the agent is about to run; when none stops it, it is counted
 * as run (one repeat more of its fingerprint). The one repeat counter of every run, live or replayed.
 */
export function admitAction(brakes: readonly Brake[], state: RunState, action: Action): Stop | null {
  const stop = firstStop(brakes, (b) => b.beforeAction?.(state, action));
  if (!stop) state.repeats.set(action.fingerprint, (state.repeats.get(action.fingerprint) ?? 0) + 1);
  return stop;
}
