// A run's transcript: every message sent and received, exactly as billed. Messages are stored
// once and each call lists the indices it sent, so a 100-step run's file stays linear in size.
import type { CallLog } from '../agents/caller.ts';
import type { ChatMessage } from '../contracts/chat.ts';
import type { RunRecord } from '../contracts/records.ts';

export interface Transcript {
  run_id: string;
  settings: RunRecord['settings'];
  stop_reason: RunRecord['stop_reason'];
  stop_detail: string;
  messages: ChatMessage[];
  calls: Array<Omit<CallLog, 'sent' | 'received'> & { sent: number[]; received: number | null }>;
}

export function buildTranscript(record: RunRecord, calls: CallLog[], conversation: ChatMessage[]): Transcript {
  const index = new Map<ChatMessage, number>();
  const messages: ChatMessage[] = [];
  const idx = (m: ChatMessage) => {
    let i = index.get(m);
    if (i === undefined) {
      i = messages.push(m) - 1;
      index.set(m, i);
    }
    return i;
  };
  const out = calls.map((c) => ({ ...c, sent: c.sent.map(idx), received: c.received ? idx(c.received) : null }));
  for (const m of conversation) idx(m);
  return { run_id: record.run_id, settings: record.settings, stop_reason: record.stop_reason, stop_detail: record.stop_detail, messages, calls: out };
}
