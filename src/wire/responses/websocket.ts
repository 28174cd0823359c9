// The Responses API's WebSocket mode (GET /v1/responses with Upgrade: websocket), as OpenAI's API and
// Codex CLI speak it: the client sends each request as one JSON text frame, the body of POST
// /v1/responses with `type: "response.create"` added (streaming is implicit); the server sends each
// event of the streamed answer (response.created … response.completed) as one JSON text frame, the
// data of the SSE event it would have sent over HTTP; an error is one frame `{type: "error", status,
// error: {type, code, message, param}}`, which Codex reads as the HTTP error of that status. The API
// keeps a connection's responses for `previous_response_id` even with `store: false` (bench serve keeps
// them in its store), and `generate: false` (a warm-up) prepares a response with no output that the
// next one continues.
import type { SseEvent } from '../adapter.ts';
import { wireError, type WireError } from '../error.ts';
import { isObject, json } from '../sse.ts';

export const CREATE = 'response.create';

/** A binary frame: the protocol is JSON text. */
export const BINARY_FRAME: WireError = wireError(400, 'Binary WebSocket messages are not supported: send JSON text');

/** A client frame's request body (without `type`, streamed), or why it is not one. */
export function createBody(
  text: string,
): { ok: true; body: Record<string, unknown> } | { ok: false; error: WireError } {
  const v = json(text);
  if (!isObject(v))
    return {
      ok: false,
      error: wireError(400, 'Each WebSocket message must be a JSON object', 'invalid_request_error'),
    };
  const { type, ...body } = v;
  if (type !== CREATE)
    return {
      ok: false,
      error: wireError(
        400,
        `Unsupported WebSocket message type ${JSON.stringify(type)?.slice(0, 60) ?? 'undefined'} (send '${CREATE}')`,
        'invalid_request_error',
        'type',
        'unsupported_message_type',
      ),
    };
  return { ok: true, body: { ...body, stream: true } };
}

/** An error as the API sends it on the socket (with the headers its HTTP answer would have had, e.g. retry-after). */
export function errorFrame(e: WireError, headers?: Record<string, string>): string {
  return JSON.stringify({
    type: 'error',
    status: e.status,
    error: { type: e.type, code: e.code ?? null, message: e.message, param: e.param ?? null },
    ...(headers ? { headers } : {}),
  });
}

/** A streamed answer's frames: each event's data, in order (the protocol's events all carry their `type`). */
export const eventFrames = (events: readonly SseEvent[]): string[] => events.map((e) => e.data);

/** Whether a server frame ends an answer: its final event, or an error. */
export function endsAnswer(frame: unknown): boolean {
  return (
    isObject(frame) &&
    (frame.type === 'error' ||
      frame.type === 'response.completed' ||
      frame.type === 'response.incomplete' ||
      frame.type === 'response.failed')
  );
}
