// Claude Code's session logs (`~/.claude/projects/<project>/<session>.jsonl`, and a sub-agent's
// `<session>/subagents/agent-<id>.jsonl`): one JSON line per event. An answer is written one line per
// content block (thinking, text, each tool_use), every line with the same `message.id` and the call's
// usage repeated, so a call is counted once, with the last line's usage. A failed call is an assistant
// line of model `<synthetic>` with zero usage and `isApiErrorMessage`. Sidechain lines (`isSidechain`,
// a sub-agent's calls) are sessions of their own, linked to the session that ran them. Pure: fed
// parsed lines in file order, it hands each call on as soon as its last line is read.
import { countOf, loggedAction, NO_USAGE, type LoggedCall, type LoggedUsage } from './logged-call.ts';
import type { IdSet } from './counted-ids.ts';
import type { LoggedSession } from './session-run.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

/** A content-block line still being read: the lines of one message id. */
interface OpenCall {
  id: string;
  call: LoggedCall;
}

interface Session {
  info: LoggedSession;
  open: OpenCall | null;
  /** The last real model (a `<synthetic>` error line names none). */
  model: string | null;
}

/** Anthropic's usage object as Claude Code logs it. */
export function claudeUsage(u: unknown): LoggedUsage {
  if (!isObj(u)) return NO_USAGE;
  const split = isObj(u.cache_creation) ? u.cache_creation : null;
  const written = countOf(u.cache_creation_input_tokens);
  const oneHour = split ? countOf(split.ephemeral_1h_input_tokens) : 0;
  return {
    input: countOf(u.input_tokens),
    cacheRead: countOf(u.cache_read_input_tokens),
    // Where the log splits the writes by TTL, each at its own price; an older log's total is 5-minute.
    cacheWrite5m: split ? countOf(split.ephemeral_5m_input_tokens) : written,
    cacheWrite1h: oneHour,
    output: countOf(u.output_tokens),
    // Claude's usage does not split thinking from the rest of the output.
    reasoning: 0,
  };
}

const textOf = (v: unknown): string =>
  typeof v === 'string'
    ? v
    : Array.isArray(v)
      ? v.map((b) => (isObj(b) && b.type === 'text' && typeof b.text === 'string' ? b.text : '')).join('')
      : '';

export class ClaudeCodeLog {
  private readonly sessions = new Map<string, Session>();

  /**
   * `call` gets each call, in order, with the session it belongs to. `counted`: message ids already
   * counted (shared across files: a resumed session's log repeats the calls it copied), so a block line
   * of one of them that comes again adds nothing.
   */
  constructor(
    private readonly call: (session: LoggedSession, call: LoggedCall) => void,
    private readonly counted: IdSet,
  ) {}

  /** One parsed line; what is wrong with it (one phrase), or null. Lines of other kinds are passed over. */
  line(v: unknown): string | null {
    if (!isObj(v)) return 'not a JSON object';
    const sessionId = str(v.sessionId);
    // Summaries, file-history snapshots and queue operations carry no call.
    if (!sessionId || (v.type !== 'assistant' && v.type !== 'user')) return null;
    const s = this.session(v, sessionId);
    if (v.type === 'user') {
      this.flush(s);
      return null;
    }
    const m = v.message;
    if (!isObj(m)) return 'an assistant line without a message';
    const id = str(m.id) ?? str(v.uuid);
    if (!id) return 'an assistant message without an id';
    if (s.open?.id !== id) {
      if (this.counted.has(id)) return null;
      this.flush(s);
      s.open = { id, call: this.newCall(s, v, m) };
    }
    const c = s.open.call;
    // Every block line repeats the usage; the last one read is the call's.
    c.usage = claudeUsage(m.usage);
    for (const b of Array.isArray(m.content) ? m.content : []) {
      if (!isObj(b)) continue;
      if (b.type === 'tool_use' || b.type === 'server_tool_use')
        c.actions.push(loggedAction(str(b.name) ?? 'unnamed', b.input ?? {}));
    }
    c.text += textOf(m.content);
    return null;
  }

  private newCall(s: Session, v: Obj, m: Obj): LoggedCall {
    const synthetic = m.model === '<synthetic>' || v.isApiErrorMessage === true;
    const model = synthetic ? (s.model ?? '<synthetic>') : (str(m.model) ?? 'unknown');
    if (!synthetic) s.model = model;
    const status = typeof v.apiErrorStatus === 'number' ? `${v.apiErrorStatus} ` : '';
    const error = synthetic ? `API error: ${status}${textOf(m.content) || str(v.error) || 'no detail logged'}` : null;
    return { model, at: str(v.timestamp), usage: NO_USAGE, actions: [], text: '', error };
  }

  private session(v: Obj, sessionId: string): Session {
    const agentId = v.isSidechain === true ? (str(v.agentId) ?? 'sidechain') : null;
    const key = agentId ? `${sessionId}-agent-${agentId}` : sessionId;
    let s = this.sessions.get(key);
    if (!s) {
      s = {
        info: { id: key, parent: agentId ? sessionId : null, version: str(v.version), startedAt: str(v.timestamp) },
        open: null,
        model: null,
      };
      this.sessions.set(key, s);
    }
    return s;
  }

  private flush(s: Session): void {
    if (!s.open) return;
    this.counted.add(s.open.id);
    this.call(s.info, s.open.call);
    s.open = null;
  }

  /** The file is read: every call still open is handed on; the sessions met, in order. */
  end(): LoggedSession[] {
    for (const s of this.sessions.values()) this.flush(s);
    return [...this.sessions.values()].map((s) => s.info);
  }
}

/** Whether a parsed line is one Claude Code writes (for detection by content). */
export function isClaudeCodeLine(v: unknown): boolean {
  return (
    isObj(v) &&
    typeof v.type === 'string' &&
    !('payload' in v) &&
    (typeof v.sessionId === 'string' || typeof v.leafUuid === 'string')
  );
}
