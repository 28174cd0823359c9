// An upstream's answer as bytes arriving, for every protocol's reader: a JSON body read whole, or
// server-sent events split as they arrive (each kept as it came, to pass on byte for byte, and
// handed over parsed), and the message of an error body (OpenAI's and Anthropic's both carry
// `error.message`).
import { Buffer } from 'node:buffer';
import { StringDecoder } from 'node:string_decoder';
import type { AnswerReader, ReadAnswer, WireAdapter } from './adapter.ts';
import { json, parseSseBlock } from './sse.ts';

/** One event: its name, and its data parsed as JSON (the text as it came when it is not JSON; [DONE] stays text). */
export interface SseBlock {
  event?: string;
  data: unknown;
}

export class SseReader {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  /** Each event's text as it came, its blank line included. */
  readonly texts: string[] = [];

  push(chunk: Buffer, take: (e: SseBlock) => void): void {
    this.pending += this.decoder.write(chunk);
    const boundary = /\r?\n\r?\n/g;
    let from = 0;
    for (let m = boundary.exec(this.pending); m; m = boundary.exec(this.pending)) {
      this.block(this.pending.slice(from, m.index + m[0].length), take);
      from = m.index + m[0].length;
    }
    if (from > 0) this.pending = this.pending.slice(from);
  }

  /** The last bytes are in: what is left is the last event. */
  end(take: (e: SseBlock) => void): void {
    this.pending += this.decoder.end();
    if (this.pending) this.block(this.pending, take);
    this.pending = '';
  }

  private block(text: string, take: (e: SseBlock) => void): void {
    this.texts.push(text);
    const e = parseSseBlock(text);
    if (e)
      take({ ...(e.event ? { event: e.event } : {}), data: e.data === '[DONE]' ? e.data : (json(e.data) ?? e.data) });
  }
}

/** A whole JSON answer, or why it is not one. */
export function readJson(chunks: Buffer[]): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown };
  } catch (e) {
    return { ok: false, error: `upstream answered with invalid JSON (${(e as Error).message})` };
  }
}

/** The message an upstream's error body carries, null when it has none that can be read. */
export function errorMessage(body: string): string | null {
  const m = (json(body) as { error?: { message?: unknown } } | null)?.error?.message;
  return typeof m === 'string' ? m : null;
}

/**
 * A reader of a protocol whose every answer carries its usage (the Responses API, Anthropic
 * Messages): the bytes passed on as they came, the answer read by the protocol's own reader (whole,
 * or assembled event by event), then handed to `kept` (for the protocols that keep answers).
 * `what` names the answer and the event a stream must end with, for the errors.
 */
export function wholeReader(
  wire: Pick<WireAdapter, 'read' | 'assemble'>,
  stream: boolean,
  what: { answer: string; end: string },
  kept: (a: ReadAnswer) => void,
): AnswerReader {
  const chunks: Buffer[] = [];
  const events = stream ? new SseReader() : null;
  const assembler = wire.assemble();
  const take = (e: SseBlock) => assembler.add(e.event, e.data);
  return {
    push(chunk) {
      chunks.push(chunk);
      events?.push(chunk, take);
    },
    end() {
      let answer: ReadAnswer | null;
      if (events) {
        events.end(take);
        answer = assembler.end();
        if (!answer) return { ok: false, error: `the upstream's stream ended without ${what.end}` };
      } else {
        const body = readJson(chunks);
        if (!body.ok) return body;
        answer = wire.read(body.value);
        if (!answer) return { ok: false, error: `upstream answered with JSON that is not ${what.answer}` };
      }
      kept(answer);
      return { ok: true, answer };
    },
    clientBody: () => ({ contentType: stream ? 'text/event-stream' : 'application/json', pieces: chunks }),
  };
}
