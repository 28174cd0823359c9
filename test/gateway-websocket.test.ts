// The Responses API's WebSocket mode through the metering gateway: the agent's socket paired with one
// to the upstream (bench serve here), each response.create frame one call of the run: braked, metered
// from the upstream's response.completed, answered with the same events a streamed POST gets; a brake's
// refusal an error frame recorded as a refused call; the upstream key in no frame and no record.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StepRecord } from '../src/contracts/records.ts';
import type { Limits } from '../src/contracts/settings.ts';
import { Gateway } from '../src/gateway/gateway.ts';
import { RunMeter } from '../src/gateway/run-meter.ts';
import type { Upstream } from '../src/gateway/upstream.ts';
import { TokenCounter } from '../src/meter/tokens.ts';
import type { RunningServer } from '../src/serve/server.ts';
import { parseSse } from '../src/wire/sse.ts';
import { gatewaySettings } from './helpers/stub-upstream.ts';
import { openSocket, withoutIds } from './helpers/ws-client.ts';
import { serve } from './serve-helpers.ts';

const UPSTREAM_KEY = 'upstream-SECRET-5e6f7a8b';

let sim: RunningServer;
let gateway: Gateway;
let runs = 0;

beforeAll(async () => {
  sim = await serve();
  gateway = await Gateway.start({ host: '127.0.0.1', port: 0, counter: new TokenCounter() });
});
afterAll(async () => {
  await gateway.close();
  await sim.close();
});

function openRun(limits: Partial<Limits> = {}, upstream: Partial<Upstream> = {}) {
  const steps: StepRecord[] = [];
  const meter = new RunMeter(`ws-${++runs}`, 'cfg', gatewaySettings(limits), (r) => steps.push(r));
  const key = gateway.open({
    meter,
    upstream: { url: sim.url, model: 'tiny-agent', seed: 3, timeoutMs: 10_000, apiKey: UPSTREAM_KEY, ...upstream },
  });
  return { key, steps, auth: { authorization: `Bearer ${key}` } };
}

const BODY = {
  model: 'gpt-4o',
  instructions: 'You are an agent.',
  input: [{ role: 'user', content: 'compute the sum of squares 1..100' }],
  tools: [
    {
      type: 'function',
      name: 'run_python',
      parameters: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
    },
  ],
  store: false,
};

type Completed = { response: { id: string; usage: { input_tokens: number; output_tokens: number } } };

describe('the gateway: the Responses API over a WebSocket', () => {
  it('meters each response.create as the upstream billed it, answered with the events a streamed POST gets', async () => {
    const run = openRun();
    const socket = await openSocket(gateway.url, run.auth);
    const frames = await socket.create(BODY);
    socket.close();
    const done = frames.at(-1) as unknown as Completed;
    expect(frames.at(-1)!.type).toBe('response.completed');
    expect(run.steps.map((s) => [s.input_tokens, s.output_tokens, s.usage_source, s.error])).toEqual([
      [done.response.usage.input_tokens, done.response.usage.output_tokens, 'provider', null],
    ]);
    const post = openRun();
    const res = await fetch(`${gateway.url}/responses`, {
      method: 'POST',
      headers: { ...post.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ ...BODY, stream: true }),
    });
    const events = parseSse(await res.text()).map((e) => JSON.parse(e.data) as unknown);
    expect(frames.map(withoutIds)).toEqual(events.map(withoutIds));
    expect(post.steps.map((s) => [s.input_tokens, s.output_tokens])).toEqual([
      [run.steps[0]!.input_tokens, run.steps[0]!.output_tokens],
    ]);
  });

  it('a warm-up and the turns that continue it with store: false, each a call metered as billed; a brake refuses in an error frame', async () => {
    const run = openRun({ max_steps: 2 });
    const socket = await openSocket(gateway.url, { ...run.auth, 'openai-beta': 'responses_websockets=2026-02-06' });
    const warm = (await socket.create({ ...BODY, generate: false })).at(-1) as unknown as Completed;
    const turn = (await socket.create({ ...BODY, input: [], previous_response_id: warm.response.id })).at(
      -1,
    ) as unknown as Completed;
    expect(run.steps.map((s) => [s.input_tokens, s.output_tokens, s.usage_source])).toEqual([
      [warm.response.usage.input_tokens, 0, 'provider'],
      [turn.response.usage.input_tokens, turn.response.usage.output_tokens, 'provider'],
    ]);
    expect(turn.response.usage.input_tokens).toBe(warm.response.usage.input_tokens);
    const [refused] = await socket.create({ ...BODY, input: [], previous_response_id: turn.response.id });
    expect(refused).toMatchObject({
      type: 'error',
      status: 403,
      error: { type: 'loopbench_brake', code: 'loopbench_max_steps' },
    });
    expect(run.steps.map((s) => s.error?.slice(0, 59) ?? null)).toEqual([
      null,
      null,
      'refused by the gateway (HTTP 403 loopbench_max_steps): loop',
    ]);
    socket.close();
    // Neither the agent's frames nor the run's records carry the upstream's key.
    expect(socket.raw.join('\n')).not.toContain(UPSTREAM_KEY);
    expect(JSON.stringify(run.steps)).not.toContain(UPSTREAM_KEY);
  });

  it('a socket of a run that has ended since its upgrade is refused, as its key is', async () => {
    const run = openRun();
    const socket = await openSocket(gateway.url, run.auth);
    gateway.end(run.key);
    const [refused] = await socket.create(BODY);
    expect(refused).toMatchObject({ type: 'error', status: 401, error: { code: 'invalid_api_key' } });
    expect(run.steps).toEqual([]);
    socket.close();
  });

  it('refuses the upgrade of an unknown key, and of a run whose upstream has no WebSocket (its status: the agent falls back to POST)', async () => {
    await expect(openSocket(gateway.url, { authorization: 'Bearer lb-unknown' })).rejects.toThrow('HTTP 401');
    const plain = http.createServer((_req, res) => res.writeHead(404).end());
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(plain.address() as AddressInfo).port}/v1`;
    const run = openRun({}, { url });
    await expect(openSocket(gateway.url, run.auth)).rejects.toThrow('HTTP 404');
    expect(run.steps).toEqual([]);
    await new Promise((r) => plain.close(r));
  });
});
