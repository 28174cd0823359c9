// `bench import --format claude-code | codex`: the coding-agent CLIs' own session logs into a results
// directory, one run per session, one step per model call. Files are streamed line by line, each
// session's calls handed to the sink as they are read, so memory holds the open sessions' running
// sums (and the ids of calls already counted), never a file. A line that cannot be read — cut short,
// not UTF-8, longer than the cap — is counted and the file goes on; each file with such lines is one
// line saying how many and where the first of each kind is.
import path from 'node:path';
import type { ImportOptions, FoundFiles } from '../import-dir.ts';
import { ImportSink, type ImportOutcome } from '../import-sink.ts';
import { forEachLine, JsonStreamError, MAX_MEMBER_BYTES } from '../json-stream.ts';
import { ClaudeCodeLog, isClaudeCodeLine } from './claude-code.ts';
import { CountedIds, type IdSet } from './counted-ids.ts';
import { CodexLog, isCodexLine } from './codex.ts';
import type { LoggedCall } from './logged-call.ts';
import { SessionRunBuilder, type LogFormat, type LoggedSession } from './session-run.ts';

export const LOG_FORMATS = ['claude-code', 'codex'] as const satisfies readonly LogFormat[];

const NAMES: Record<LogFormat, string> = { 'claude-code': 'Claude Code', codex: 'Codex CLI' };

/** What a reader of either format offers the importer. */
interface LogReader {
  line(v: unknown): string | null;
  end(): LoggedSession[];
}

/** Lines of one file that could not be read, by kind: how many, and the first one's number. */
class BadLines {
  private readonly kinds = new Map<string, { count: number; first: number }>();

  add(kind: string, n: number): void {
    const k = this.kinds.get(kind);
    if (k) k.count++;
    else this.kinds.set(kind, { count: 1, first: n });
  }

  /** The lines skipped, by kind (`1 longer than 64 MiB (first: line 1)`), or null when every line was read. */
  phrase(): string | null {
    if (this.kinds.size === 0) return null;
    return [...this.kinds].map(([kind, k]) => `${k.count} ${kind} (first: line ${k.first})`).join('; ');
  }

  /** One line for the file, or null when every line was read. */
  summary(file: string): string | null {
    const phrase = this.phrase();
    if (!phrase) return null;
    const total = [...this.kinds.values()].reduce((a, k) => a + k.count, 0);
    return `${file}: ${total} line(s) skipped — ${phrase}; the file's other lines are imported`;
  }
}

function readerFor(
  format: LogFormat,
  file: string,
  counted: IdSet,
  call: (s: LoggedSession, c: LoggedCall) => void,
): LogReader {
  if (format === 'claude-code') return new ClaudeCodeLog(call, counted);
  // rollout-2026-01-02T03-04-05-<session id>.jsonl
  const id = /rollout-[\dT-]+?-([0-9a-f-]{36})\.jsonl$/.exec(path.basename(file))?.[1] ?? path.basename(file, '.jsonl');
  return new CodexLog(id, call);
}

/** One file into the sink: its sessions' runs, committed at the file's end. */
function importLogFile(
  sink: ImportSink,
  format: LogFormat,
  file: string,
  counted: IdSet,
  o: ImportOptions,
  state: { pending: Map<string, number>; empty: number },
): void {
  const builders = new Map<string, SessionRunBuilder>();
  const bad = new BadLines();
  let recognised = false;
  let lines = 0;
  const mark = sink.begin();
  const reader = readerFor(format, file, counted, (session, call) => {
    let b = builders.get(session.id);
    if (!b) {
      b = new SessionRunBuilder(session, {
        format,
        scenario: o.scenario,
        price: (model) => priceOf(o, model),
        // A file's runs are committed at its end: its earlier runs of the same configuration count ahead.
        repeatOf: (config) => {
          const ahead = state.pending.get(config) ?? 0;
          state.pending.set(config, ahead + 1);
          return sink.nextRepeat(config) + ahead;
        },
      });
      builders.set(session.id, b);
    }
    sink.step(b.add(call));
  });
  const looksRight = format === 'claude-code' ? isClaudeCodeLine : isCodexLine;
  const cap = o.stream?.maxMemberBytes ?? MAX_MEMBER_BYTES;
  try {
    forEachLine(
      file,
      (text, n) => {
        if (!text.trim()) return;
        lines++;
        let v: unknown;
        try {
          v = JSON.parse(text);
        } catch {
          return bad.add('not JSON (cut short or partly written)', n);
        }
        if (looksRight(v)) recognised = true;
        const why = reader.line(v);
        if (why) bad.add(why, n);
      },
      {
        tooLong: (n) => bad.add(`longer than ${cap / (1024 * 1024)} MiB`, n),
        badUtf8: (n) => bad.add('not valid UTF-8', n),
        maxLineBytes: cap,
      },
    );
  } catch (e) {
    sink.discard(mark);
    const code = (e as NodeJS.ErrnoException).code;
    return sink.skip(
      `${file}: ${e instanceof JsonStreamError ? e.message : `cannot read file (${code ?? (e as Error).message})`}`,
    );
  }
  const sessions = reader.end();
  if (!recognised) {
    sink.discard(mark);
    // A file of nothing but unreadable lines (one line of 300 MB) says so, not "no lines".
    const unread = bad.phrase();
    const read = lines ? `none of its ${lines} line(s) is one` : unread ? 'no line it could read' : 'no lines';
    return sink.skip(`${file}: not a ${NAMES[format]} session log (${read}${unread ? `; ${unread}` : ''}): skipped`);
  }
  const badLine = bad.summary(file);
  if (badLine) sink.skip(badLine);
  for (const s of sessions) {
    const b = builders.get(s.id);
    if (!b) {
      state.empty++;
      continue;
    }
    const { run, unpriced } = b.result();
    if (sink.has(run.run_id)) {
      sink.problem(
        `${file}: session ${s.id} was already imported from another file: its new calls are added as run ${run.run_id} again (check for a copied log)`,
      );
    }
    for (const model of unpriced)
      sink.note(
        `model '${model}' is not in the pricing table: its calls are recorded at $0 (give --pricing FILE, e.g. LiteLLM's model_prices_and_context_window.json, or --price-model NAME)`,
      );
    sink.commit(run, b.configKey);
  }
}

function priceOf(o: ImportOptions, model: string) {
  if (typeof o.price !== 'function') return o.price;
  // Logs name dated snapshots (claude-sonnet-4-5-20250929) and context variants (claude-opus-4-8[1m]).
  const plain = model.replace(/\[[^\]]*\]$/, '');
  for (const m of [model, plain, plain.replace(/-\d{8}$/, '')]) {
    const p = o.price(m);
    if (p) return p;
  }
  return undefined;
}

/** Imports coding-agent session logs into `dir` (which must not hold records yet). */
export function importAgentLogs(format: LogFormat, found: FoundFiles, dir: string, o: ImportOptions): ImportOutcome {
  const sink = new ImportSink(dir, o.steps);
  for (const line of found.unreadable) sink.skip(line);
  const counted = new CountedIds();
  const state = { pending: new Map<string, number>(), empty: 0 };
  for (const file of found.files) {
    state.pending.clear();
    importLogFile(sink, format, file, counted, o, state);
  }
  if (state.empty)
    sink.note(
      `${state.empty} session(s) without a model call (a prompt only, or calls already counted in another file) are not runs`,
    );
  return sink.finish(format, found.files.length, o);
}

/** The first non-blank line of a file, or null (none, or unreadable). */
function firstLine(file: string): string | null {
  let first: string | null = null;
  try {
    forEachLine(
      file,
      (text) => {
        if (!text.trim()) return;
        first = text;
        throw new FirstLineRead();
      },
      { tooLong: () => {}, badUtf8: () => {} },
    );
  } catch (e) {
    if (!(e instanceof FirstLineRead)) return null;
  }
  return first;
}

class FirstLineRead extends Error {}

/** The log format of the first .jsonl file found, by its first line's shape; null when it is neither. */
export function detectLogFormat(found: FoundFiles): LogFormat | null {
  const file = found.files.find((f) => f.endsWith('.jsonl'));
  const text = file ? firstLine(file) : null;
  let v: unknown;
  try {
    v = text === null ? null : JSON.parse(text);
  } catch {
    return null;
  }
  return isCodexLine(v) ? 'codex' : isClaudeCodeLine(v) ? 'claude-code' : null;
}
