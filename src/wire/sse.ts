// Server-sent events as they go on the wire and back, and the JSON their data carries.
import type { ReadAnswer, SseEvent, WireAdapter } from './adapter.ts';

/** A streamed answer read back whole, from its events. */
export function readEvents(wire: Pick<WireAdapter, 'assemble'>, events: readonly SseEvent[]): ReadAnswer | null {
  const a = wire.assemble();
  for (const e of events) a.add(e.event, e.data === '[DONE]' ? e.data : (json(e.data) ?? e.data));
  return a.end();
}

/** The text form of events, as they go on the wire. */
export function sseText(events: readonly SseEvent[]): string {
  return events.map((e) => `${e.event ? `event: ${e.event}\n` : ''}data: ${e.data}\n\n`).join('');
}

/** One block of a server-sent stream (the text between blank lines) as its event, or null when it has no data. */
export function parseSseBlock(block: string): SseEvent | null {
  let event: string | undefined;
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  return data.length ? { ...(event ? { event } : {}), data: data.join('\n') } : null;
}

/** The events of a server-sent stream, in order. */
export function parseSse(text: string): SseEvent[] {
  return text
    .split(/\r?\n\r?\n/)
    .map(parseSseBlock)
    .filter((e): e is SseEvent => e !== null);
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A JSON body, or null when it is not one. */
export function json(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
