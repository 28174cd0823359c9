// Codex CLI's session logs (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`): one JSON line per
// event, `{timestamp, type, payload}`. A session's first line is `session_meta`; `turn_context` names
// the model; `response_item` lines are the conversation (the answer's function calls and messages
// come before the usage of the call that made them). Each model call's usage is one
// `token_usage_record` line (Codex 0.17x); older logs have only `event_msg` `token_count` lines, whose
// `last_token_usage` is the call's and which repeat when nothing new was billed (the running total
// tells). A failed call is an `event_msg` `error`, or the turn's `task_complete` carrying an error.
// Usage is OpenAI's: input includes the cached part, output includes reasoning. Pure: fed parsed
// lines in file order.
import {
  countOf,
  loggedAction,
  NO_USAGE,
  parsedArgs,
  type LoggedAction,
  type LoggedCall,
  type LoggedUsage,
} from './logged-call.ts';
import type { LoggedSession } from './session-run.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

/** Codex's token usage object (`token_usage_record.usage`, `token_count.info.last_token_usage`). */
export function codexUsage(u: unknown): LoggedUsage {
  if (!isObj(u)) return NO_USAGE;
  const total = countOf(u.input_tokens);
  const cacheRead = Math.min(countOf(u.cached_input_tokens), total);
  const written = Math.min(countOf(u.cache_write_input_tokens), total - cacheRead);
  const output = countOf(u.output_tokens);
  return {
    input: total - cacheRead - written,
    cacheRead,
    cacheWrite5m: written,
    cacheWrite1h: 0,
    output,
    reasoning: Math.min(countOf(u.reasoning_output_tokens), output),
  };
}

const outputText = (content: unknown): string =>
  Array.isArray(content)
    ? content.map((c) => (isObj(c) && c.type === 'output_text' && typeof c.text === 'string' ? c.text : '')).join('')
    : '';

export class CodexLog {
  private info: LoggedSession;
  private model = 'unknown';
  private actions: LoggedAction[] = [];
  private text = '';
  /** A token_usage_record was read: token_count lines are then the same calls again. */
  private records = false;
  private lastTotal = -1;
  private errorInTurn = false;

  /** `fallbackId`: the session's id when the log has no session_meta line (the file name's). */
  constructor(
    fallbackId: string,
    private readonly call: (session: LoggedSession, call: LoggedCall) => void,
  ) {
    this.info = { id: fallbackId, parent: null, version: null, startedAt: null };
  }

  line(v: unknown): string | null {
    if (!isObj(v)) return 'not a JSON object';
    const p = isObj(v.payload) ? v.payload : null;
    if (!p) return null;
    const at = str(v.timestamp);
    this.info.startedAt ??= at;
    switch (v.type) {
      case 'session_meta':
        this.info = {
          ...this.info,
          id: str(p.id) ?? str(p.session_id) ?? this.info.id,
          version: str(p.cli_version),
          parent: parentOf(p),
        };
        return null;
      case 'turn_context':
        this.model = str(p.model) ?? this.model;
        return null;
      case 'response_item':
        return this.item(p);
      case 'token_usage_record':
        this.records = true;
        this.emit(at, codexUsage(p.usage), null);
        return null;
      case 'event_msg':
        return this.event(p, at);
      default:
        return null;
    }
  }

  private item(p: Obj): null {
    if (p.type === 'function_call') this.actions.push(loggedAction(str(p.name) ?? 'unnamed', parsedArgs(p.arguments)));
    else if (p.type === 'custom_tool_call') this.actions.push(loggedAction(str(p.name) ?? 'unnamed', p.input ?? ''));
    else if (p.type === 'local_shell_call')
      this.actions.push(loggedAction('local_shell', { command: isObj(p.action) ? p.action.command : null }));
    else if (p.type === 'message' && p.role === 'assistant') this.text += outputText(p.content);
    return null;
  }

  private event(p: Obj, at: string | null): null {
    if (p.type === 'task_started') this.errorInTurn = false;
    else if (p.type === 'token_count' && !this.records && isObj(p.info)) {
      // The running total says whether this event bills a new call or repeats the last one.
      const total = isObj(p.info.total_token_usage) ? countOf(p.info.total_token_usage.total_tokens) : -1;
      if (total !== -1 && total === this.lastTotal) return null;
      this.lastTotal = total;
      this.emit(at, codexUsage(p.info.last_token_usage), null);
    } else if (p.type === 'error') this.fail(at, str(p.message));
    else if (p.type === 'task_complete' && isObj(p.error) && !this.errorInTurn) this.fail(at, str(p.error.message));
    return null;
  }

  private fail(at: string | null, message: string | null): void {
    this.errorInTurn = true;
    this.emit(at, NO_USAGE, `API error: ${message ?? 'no detail logged'}`);
  }

  private emit(at: string | null, usage: LoggedUsage, error: string | null): void {
    this.call(this.info, { model: this.model, at, usage, actions: this.actions, text: this.text, error });
    this.actions = [];
    this.text = '';
  }

  /** The file is read: the session it held. */
  end(): LoggedSession[] {
    return [this.info];
  }
}

/** The session a sub-agent's session was spawned from, where its meta names one. */
function parentOf(p: Obj): string | null {
  const source = isObj(p.source) ? p.source : null;
  const spawn =
    source && isObj(source.subagent) && isObj(source.subagent.thread_spawn) ? source.subagent.thread_spawn : null;
  return str(spawn?.parent_thread_id) ?? str(p.parent_thread_id);
}

/** Whether a parsed line is one Codex writes (for detection by content). */
export function isCodexLine(v: unknown): boolean {
  return isObj(v) && typeof v.timestamp === 'string' && typeof v.type === 'string' && isObj(v.payload);
}
