// What of a request the simulated model cannot act on, in words, so `bench serve` can say it once:
// the coding-agent CLIs send fields, tools and conversation parts no simulation could use (Claude Code's
// thinking and context_management, its signed thinking blocks; Codex's namespace and web_search tools,
// its encrypted reasoning items). They are accepted, as a provider accepts them, and left unread.

/** What a protocol's parse reads: its request fields, the tool types it offers the sim, the conversation parts it reads. */
export interface ReadParts {
  fields: ReadonlySet<string>;
  /** Tool types the sim can call (a tool without a type counts as the first). */
  toolTypes: ReadonlySet<string>;
  /** Where the conversation is, and the part types it reads (`message` parts without a type count as read). */
  conversation: { field: string; nested: boolean; types: ReadonlySet<string> };
}

import { MessagesRequest } from '../wire/messages/spelling.ts';
import { ResponsesRequest } from '../wire/responses/spelling.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One phrase per kind of part the request holds and the sim leaves unread, in a stable order. */
export function ignoredParts(body: unknown, read: ReadParts): string[] {
  if (!isObject(body)) return [];
  const out: string[] = [];
  const fields = Object.keys(body)
    .filter((k) => !read.fields.has(k))
    .sort();
  if (fields.length) out.push(`the field${fields.length > 1 ? 's' : ''} ${fields.join(', ')}`);
  const tools = Array.isArray(body.tools) ? body.tools : [];
  const [callable] = read.toolTypes;
  const toolTypes = [...new Set(tools.map((t) => (isObject(t) && typeof t.type === 'string' ? t.type : callable!)))]
    .filter((t) => !read.toolTypes.has(t))
    .sort();
  if (toolTypes.length) out.push(`tools of type ${toolTypes.join(', ')}`);
  const list = Array.isArray(body[read.conversation.field]) ? (body[read.conversation.field] as unknown[]) : [];
  const parts = new Set<string>();
  for (const m of list) {
    const inner = read.conversation.nested ? (isObject(m) && Array.isArray(m.content) ? m.content : []) : [m];
    for (const p of inner)
      if (isObject(p) && typeof p.type === 'string' && !read.conversation.types.has(p.type)) parts.add(p.type);
  }
  if (parts.size)
    out.push(`${read.conversation.nested ? 'content blocks' : 'input items'} of type ${[...parts].sort().join(', ')}`);
  return out;
}

/** What the sim reads of each protocol it serves, by route (Chat Completions' agents send nothing it must ignore). */
export const READ_PARTS: Readonly<Record<string, ReadParts>> = {
  '/v1/messages': {
    fields: new Set(Object.keys(MessagesRequest.shape)),
    toolTypes: new Set(['custom']),
    conversation: { field: 'messages', nested: true, types: new Set(['text', 'tool_use', 'tool_result']) },
  },
  '/v1/responses': {
    fields: new Set(Object.keys(ResponsesRequest.shape)),
    toolTypes: new Set(['function']),
    conversation: {
      field: 'input',
      nested: false,
      types: new Set(['message', 'function_call', 'function_call_output', 'item_reference']),
    },
  },
};
