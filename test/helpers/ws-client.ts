// A Responses WebSocket client for tests (the `ws` library, as an SDK's would be): connect with headers,
// send response.create frames, collect each answer's frames up to its final event or error.
import WebSocket from 'ws';
import { endsAnswer } from '../../src/wire/responses/websocket.ts';

export interface Socket {
  /** Sends one frame and resolves with the frames of its answer, parsed, the last one final (or an error). */
  create(body: Record<string, unknown>): Promise<Array<Record<string, unknown>>>;
  /** Every frame as it came, in order (to look for what must never be in one). */
  raw: string[];
  close(): void;
}

/** Opens `ws://…/v1/responses` below an http base URL (…/v1); rejects with the HTTP status when the upgrade is refused. */
export function openSocket(baseUrl: string, headers: Record<string, string> = {}): Promise<Socket> {
  const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/responses`, { headers });
  const raw: string[] = [];
  let waiting: { frames: Array<Record<string, unknown>>; done: (f: Array<Record<string, unknown>>) => void } | null =
    null;
  ws.on('message', (data: Buffer) => {
    const text = data.toString('utf8');
    raw.push(text);
    const frame = JSON.parse(text) as Record<string, unknown>;
    if (!waiting) return;
    waiting.frames.push(frame);
    if (endsAnswer(frame)) {
      const w = waiting;
      waiting = null;
      w.done(w.frames);
    }
  });
  return new Promise((resolve, reject) => {
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: HTTP ${res.statusCode}`)));
    ws.once('error', reject);
    ws.once('open', () =>
      resolve({
        raw,
        create: (body) =>
          new Promise((done, fail) => {
            waiting = { frames: [], done };
            ws.once('close', () => waiting && fail(new Error('socket closed before the answer ended')));
            ws.send(JSON.stringify({ type: 'response.create', ...body }));
          }),
        close: () => ws.close(),
      }),
    );
  });
}

/** An event without what differs between two answers to the same request: ids and times. */
export const withoutIds = (e: unknown): unknown =>
  JSON.parse(
    JSON.stringify(e)
      .replace(/"(resp|msg|fc)_[a-z0-9_]+"/g, '"ID"')
      .replace(/"created_at":\d+/g, '"created_at":0'),
  );
