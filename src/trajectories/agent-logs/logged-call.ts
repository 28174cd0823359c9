// What a coding-agent CLI's session log says of one model call, whichever CLI wrote it: the usage as
// the provider reported it (every part apart, so each is priced at its own rate), the actions the
// answer asked for, and the error when the call failed. The readers (claude-code.ts, codex.ts) make
// these; session-run.ts turns them into step and run records.
import { fingerprint, stepActions } from '../../contracts/fingerprint.ts';
import type { StepRecord } from '../../contracts/records.ts';

export interface LoggedUsage {
  /** Input billed at the plain input rate (neither read from nor written to the cache). */
  input: number;
  cacheRead: number;
  /** Input written to the cache at the 5-minute TTL (Anthropic's 1.25× input). */
  cacheWrite5m: number;
  /** Input written to the cache at the 1-hour TTL (Anthropic's 2× input). */
  cacheWrite1h: number;
  /** All output, reasoning included. */
  output: number;
  /** The reasoning part of `output`, where the log records it. */
  reasoning: number;
}

export const NO_USAGE: LoggedUsage = {
  input: 0,
  cacheRead: 0,
  cacheWrite5m: 0,
  cacheWrite1h: 0,
  output: 0,
  reasoning: 0,
};

export interface LoggedAction {
  tool: string;
  /** The arguments spin detection compares: for a shell tool, its command alone. */
  args: unknown;
}

export interface LoggedCall {
  /** The model the log names for the call. */
  model: string;
  /** ISO time the log wrote the call at (null: none). */
  at: string | null;
  usage: LoggedUsage;
  actions: LoggedAction[];
  /** The answer's text (the session's final answer when no action follows). */
  text: string;
  /** Why the call failed (an API error the CLI logged), or null. */
  error: string | null;
}

/**
 * The clients' own shell tools, and the argument that holds the command. Their other arguments — Claude
 * Code's free-text `description`, timeouts, working directories — vary between repeats of the same
 * command, so spin and cycle detection compare the command alone.
 */
const SHELL_COMMAND: Record<string, string> = {
  Bash: 'command',
  exec_command: 'cmd',
  shell: 'command',
  local_shell: 'command',
};

/** An action as the detectors compare it. */
export function loggedAction(tool: string, args: unknown): LoggedAction {
  const key = SHELL_COMMAND[tool];
  const command = key && args && typeof args === 'object' ? (args as Record<string, unknown>)[key] : undefined;
  return { tool, args: command === undefined ? args : { [key!]: command } };
}

/** Arguments logged as JSON text: the object, or the text itself when it is not JSON. */
export function parsedArgs(text: unknown): unknown {
  if (typeof text !== 'string') return text ?? {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The step record's action and fingerprint fields for a call's actions. */
export const actionFields = (actions: readonly LoggedAction[]): Pick<StepRecord, 'action' | 'fingerprint'> =>
  stepActions(actions.map((a) => ({ tool: a.tool, fingerprint: fingerprint(a.tool, a.args) })));

/** A non-negative integer count from a log field; anything else counts 0. */
export const countOf = (v: unknown): number => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : 0);
