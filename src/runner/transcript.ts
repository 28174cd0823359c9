// A run's transcript: every message sent and received, and the tool definitions sent, exactly as
// billed, so any call can be recounted from the transcript alone. Messages and tool lists are
// stored once and each call lists the indices it sent, so a 100-step run's file stays linear in size.
import type { CallLog } from '../agents/caller.ts';
import type { ChatMessage, ToolSpec } from '../contracts/chat.ts';
import type { RunRecord } from '../contracts/records.ts';

export interface Transcript {
  run_id: string;
  settings: RunRecord['settings'];
  stop_reason: RunRecord['stop_reason'];
  stop_detail: string;
  messages: ChatMessage[];
  /** The distinct tool lists the run sent; a call's `tools` is an index into it (null: none sent). */
  tools: ToolSpec[][];
  calls: Array<
    Omit<CallLog, 'sent' | 'received' | 'tools'> & { sent: number[]; tools: number | null; received: number | null }
  >;
}

/** Index of each distinct object, by identity, in the order first seen. */
function interner<T extends object>(): { list: T[]; of: (x: T) => number } {
  const index = new Map<T, number>();
  const list: T[] = [];
  return {
    list,
    of(x) {
      let i = index.get(x);
      if (i === undefined) {
        i = list.push(x) - 1;
        index.set(x, i);
      }
      return i;
    },
  };
}

export function buildTranscript(record: RunRecord, calls: CallLog[], conversation: ChatMessage[]): Transcript {
  const messages = interner<ChatMessage>();
  const tools = interner<ToolSpec[]>();
  const out = calls.map((c) => ({
    ...c,
    sent: c.sent.map(messages.of),
    tools: c.tools && c.tools.length > 0 ? tools.of(c.tools) : null,
    received: c.received ? messages.of(c.received) : null,
  }));
  for (const m of conversation) messages.of(m);
  return {
    run_id: record.run_id,
    settings: record.settings,
    stop_reason: record.stop_reason,
    stop_detail: record.stop_detail,
    messages: messages.list,
    tools: tools.list,
    calls: out,
  };
}
