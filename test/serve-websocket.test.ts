// bench serve's Responses WebSocket (GET /v1/responses, Upgrade: websocket): each response.create frame is
// answered with the frames of the events its POST with stream: true would get, errors as error frames, and
// responses kept on the connection for previous_response_id even with store: false (a warm-up included).
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningServer } from '../src/serve/server.ts';
import { parseSse } from '../src/wire/sse.ts';
import { serve } from './serve-helpers.ts';
import { openSocket, withoutIds, type Socket } from './helpers/ws-client.ts';

let server: RunningServer | undefined;
let socket: Socket | undefined;
afterEach(async () => {
  socket?.close();
  await server?.close();
  server = socket = undefined;
});

const BODY = {
  model: 'tiny-agent',
  instructions: 'You are an agent.',
  input: [{ role: 'user', content: 'compute the sum of squares 1..100' }],
  tools: [
    {
      type: 'function',
      name: 'run_python',
      description: 'Run Python code',
      parameters: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
    },
  ],
  seed: 7,
  store: false,
};

describe('bench serve: the Responses API over a WebSocket', () => {
  it('answers a response.create with the frames of the events its streamed POST gets, usage and all', async () => {
    server = await serve();
    const http = await fetch(`${server.url}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...BODY, stream: true }),
    });
    const events = parseSse(await http.text()).map((e) => JSON.parse(e.data) as Record<string, unknown>);
    socket = await openSocket(server.url);
    const frames = await socket.create(BODY);
    expect(frames.map(withoutIds)).toEqual(events.map(withoutIds));
    const done = frames.at(-1)!;
    expect(done.type).toBe('response.completed');
    const usage = (done.response as { usage: { input_tokens: number; output_tokens: number } }).usage;
    expect(usage.input_tokens).toBeGreaterThan(20);
    expect(usage.output_tokens).toBeGreaterThan(0);
  });

  it('keeps each response on the connection (store: false too): a warm-up, then the turns that continue it', async () => {
    server = await serve();
    socket = await openSocket(server.url);
    const warm = await socket.create({ ...BODY, generate: false });
    const warmed = warm.at(-1)!.response as { id: string; output: unknown[]; usage: Record<string, number> };
    expect(warm.map((f) => f.type)).toEqual(['response.created', 'response.in_progress', 'response.completed']);
    expect(warmed.output).toEqual([]);
    expect(warmed.usage.output_tokens).toBe(0);
    expect(warmed.usage.input_tokens).toBeGreaterThan(20);
    // The turn sends nothing new: it continues the warm-up's input, and is answered as the whole request would be.
    const turn = await socket.create({ ...BODY, input: [], previous_response_id: warmed.id });
    const whole = await socket.create(BODY);
    expect(turn.map(withoutIds)).toEqual(
      whole.map(withoutIds).map((e) => {
        const r = (e as { response?: Record<string, unknown> }).response;
        return r ? { ...(e as object), response: { ...r, previous_response_id: 'ID' } } : e;
      }),
    );
  });

  it('refuses in error frames as the API does, and the socket stays open for the next request', async () => {
    server = await serve();
    socket = await openSocket(server.url);
    const [unknown] = await socket.create({ ...BODY, model: 'no-such-profile' });
    expect(unknown).toMatchObject({ type: 'error', status: 404, error: { code: 'model_not_found' } });
    const [missing] = await socket.create({ ...BODY, input: [], previous_response_id: 'resp_never' });
    expect(missing).toMatchObject({ type: 'error', status: 400, error: { code: 'previous_response_not_found' } });
    const answered = await socket.create(BODY);
    expect(answered.at(-1)!.type).toBe('response.completed');
  });

  it('answers the upgrade on /v1/responses only', async () => {
    server = await serve();
    await expect(openSocket(server.url.replace(/\/v1$/, '/v1/chat'))).rejects.toThrow('HTTP 404');
  });
});
