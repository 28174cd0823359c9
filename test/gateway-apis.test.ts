// The Responses API and Anthropic Messages through the metering gateway, as agents meet them: the
// official openai SDK's responses.create and the Anthropic SDK's messages.create with the run's
// virtual key (bearer, x-api-key), in front of a real `bench serve` or a scripted upstream of the
// same protocol. What each call is billed, what the gateway counts when the upstream sends no usage
// (previous_response_id and Threads counted whole, as providers bill them), brakes refused in each
// API's own error shape and not retried, and the upstream key kept from everything the agent sees.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StepRecord } from '../src/contracts/records.ts';
import type { Limits, Price } from '../src/contracts/settings.ts';
import { Gateway } from '../src/gateway/gateway.ts';
import { RunMeter } from '../src/gateway/run-meter.ts';
import type { Upstream } from '../src/gateway/upstream.ts';
import { callCost } from '../src/meter/pricing.ts';
import { TokenCounter } from '../src/meter/tokens.ts';
import type { RunningServer } from '../src/serve/server.ts';
import { gatewaySettings, sendJson, stubUpstream, type StubUpstream } from './helpers/stub-upstream.ts';
import { serve } from './serve-helpers.ts';

const UPSTREAM_KEY = 'upstream-SECRET-a1b2c3d4';
const CLAUDE: Price = {
  model: 'claude-sonnet-4-5',
  input_per_1m: 3,
  cached_input_per_1m: 0.3,
  cache_write_per_1m: 3.75,
  cache_write_1h_per_1m: 6,
  output_per_1m: 15,
};
const O4: Price = {
  model: 'o4-mini',
  input_per_1m: 1.1,
  cached_input_per_1m: 0.275,
  output_per_1m: 4.4,
  reasoning_per_1m: 5,
};

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

/** A run on the gateway: its key, its steps, and a count of the requests its SDK clients made (retries show as more). */
function openRun(limits: Partial<Limits>, upstream: Partial<Upstream> = {}, price?: Price) {
  const steps: StepRecord[] = [];
  const settings = { ...gatewaySettings(limits), ...(price ? { price } : {}) };
  const meter = new RunMeter(`apis-${++runs}`, 'cfg', settings, (r) => steps.push(r));
  const key = gateway.open({
    meter,
    upstream: { url: sim.url, model: 'seed-calibrated', seed: 3, timeoutMs: 10_000, ...upstream },
  });
  const sent = { n: 0 };
  const fetch: typeof globalThis.fetch = (input, init) => (sent.n++, globalThis.fetch(input, init));
  const openai = new OpenAI({ apiKey: key, baseURL: gateway.url, maxRetries: 2, fetch });
  const anthropic = new Anthropic({ apiKey: key, baseURL: gateway.url.replace(/\/v1$/, ''), maxRetries: 2, fetch });
  return { meter, key, steps, sent, openai, anthropic };
}

const responseTools: OpenAI.Responses.Tool[] = [
  {
    type: 'function',
    name: 'lookup',
    strict: false,
    parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
  },
];
const messageTools: Anthropic.Tool[] = [
  { name: 'lookup', input_schema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } },
];

/** One Responses turn: the answer's items and a result for each function call, appended to `input` (the whole history, as the Agents SDK sends it). */
async function responsesTurn(client: OpenAI, input: OpenAI.Responses.ResponseInputItem[], stream: boolean) {
  const body = { model: 'the-agents-model', instructions: 'You are an agent.', input, tools: responseTools };
  const r = stream ? await client.responses.stream(body).finalResponse() : await client.responses.create(body);
  for (const item of r.output) {
    input.push(item as OpenAI.Responses.ResponseInputItem);
    if (item.type === 'function_call')
      input.push({ type: 'function_call_output', call_id: item.call_id, output: `result for ${item.call_id}` });
  }
  return r;
}

/** One Messages turn, the history in `messages`. */
async function messagesTurn(client: Anthropic, messages: Anthropic.MessageParam[], stream: boolean) {
  const body = {
    model: 'the-agents-model',
    max_tokens: 256,
    system: 'You are an agent.',
    messages,
    tools: messageTools,
  };
  const m = stream ? await client.messages.stream(body).finalMessage() : await client.messages.create(body);
  messages.push({ role: 'assistant', content: m.content });
  const results = m.content
    .filter((b) => b.type === 'tool_use')
    .map((b) => ({ type: 'tool_result' as const, tool_use_id: b.id, content: `result for ${b.id}` }));
  if (results.length) messages.push({ role: 'user', content: results });
  return m;
}

describe.each([false, true])('against bench serve (stream: %s)', (stream) => {
  it("Responses: each call metered as the upstream billed it, the step limit refused with a 403 in OpenAI's shape, not retried", async () => {
    const run = openRun({ max_steps: 2 });
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'Collect sources.' }];
    const a = await responsesTurn(run.openai, input, stream);
    const b = await responsesTurn(run.openai, input, stream);
    expect(run.steps.map((s) => [s.input_tokens, s.output_tokens, s.usage_source])).toEqual([
      [a.usage!.input_tokens, a.usage!.output_tokens, 'provider'],
      [b.usage!.input_tokens, b.usage!.output_tokens, 'provider'],
    ]);
    expect(run.steps.map((s) => s.action)).toEqual(['lookup', 'lookup']);
    const sentBefore = run.sent.n;
    const refused = await responsesTurn(run.openai, input, stream).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(refused).toMatchObject({ status: 403, code: 'loopbench_max_steps', type: 'loopbench_brake' });
    expect(run.sent.n - sentBefore).toBe(1);
    // Recorded as a call that took no step, with its error and no usage.
    expect(run.steps.map((s) => [s.step, s.input_tokens, s.error?.slice(0, 60) ?? null])).toEqual([
      [1, a.usage!.input_tokens, null],
      [2, b.usage!.input_tokens, null],
      [2, 0, 'refused by the gateway (HTTP 403 loopbench_max_steps): loopb'],
    ]);
  });

  it("Messages: the virtual key as x-api-key, each call metered, the step limit refused in Anthropic's shape, not retried", async () => {
    const run = openRun({ max_steps: 2 });
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Collect sources.' }];
    const a = await messagesTurn(run.anthropic, messages, stream);
    const b = await messagesTurn(run.anthropic, messages, stream);
    const whole = (u: Anthropic.Usage) =>
      u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
    expect(run.steps.map((s) => [s.input_tokens, s.output_tokens])).toEqual([
      [whole(a.usage), a.usage.output_tokens],
      [whole(b.usage), b.usage.output_tokens],
    ]);
    const sentBefore = run.sent.n;
    const refused = await messagesTurn(run.anthropic, messages, stream).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Anthropic.PermissionDeniedError);
    const e = refused as InstanceType<typeof Anthropic.PermissionDeniedError>;
    expect(e.error).toMatchObject({
      type: 'error',
      error: { type: 'permission_error', details: { error_code: 'loopbench_max_steps' } },
    });
    expect(e.message).toMatch(/loopbench brake 'max_steps'/);
    expect(run.sent.n - sentBefore).toBe(1);
  });
});

describe('idle connections', () => {
  it("are kept 75 s by bench serve and the gateway, longer than a client's own idle expiry (5 s in httpx, 4 s in undici)", async () => {
    // With Node's 5 s a client reusing its socket at that moment (or late on a busy machine) meets a closed one.
    for (const url of [`${sim.url}/models`, `${gateway.url}/chat/completions`]) {
      const res = await fetch(url, {
        method: url.endsWith('models') ? 'GET' : 'POST',
        body: url.endsWith('models') ? null : '{}',
      });
      await res.arrayBuffer();
      expect(res.headers.get('keep-alive'), url).toBe('timeout=75');
    }
  });
});

describe('what the gateway counts itself (an upstream that reports no usage)', () => {
  /** bench serve behind a proxy that keeps each answer's usage and sends the answer on without it. */
  let bare: StubUpstream;
  const simUsage: Array<Record<string, number>> = [];
  beforeAll(async () => {
    bare = await stubUpstream((req, res, body) => {
      void fetch(`${sim.url.replace(/\/v1$/, '')}${req.url}`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json' },
      })
        .then((r) => r.json() as Promise<Record<string, unknown>>)
        .then((answer) => {
          simUsage.push(answer.usage as Record<string, number>);
          delete answer.usage;
          sendJson(res, JSON.stringify(answer));
        });
    });
  });
  afterAll(() => bare.close());

  it('Responses with previous_response_id: the whole context counted, as the provider bills it and as bench serve counts it', async () => {
    const run = openRun({ max_steps: 10 }, { url: bare.url });
    simUsage.length = 0;
    let previous: string | undefined;
    let input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'Collect sources.' }];
    for (let i = 0; i < 3; i++) {
      const r = await run.openai.responses.create({
        model: 'm',
        instructions: 'You are an agent.',
        input,
        tools: responseTools,
        ...(previous ? { previous_response_id: previous } : {}),
      });
      previous = r.id;
      input = r.output
        .filter((o) => o.type === 'function_call')
        .map((o) => ({ type: 'function_call_output' as const, call_id: o.call_id, output: `result for ${o.call_id}` }));
    }
    expect(run.steps.map((s) => s.usage_source)).toEqual(['counted', 'counted', 'counted']);
    expect(run.steps.map((s) => [s.input_tokens, s.output_tokens])).toEqual(
      simUsage.map((u) => [u.input_tokens, u.output_tokens]),
    );
    // Each call re-bills the whole context: input grows though each request sends one item.
    expect(run.steps[2]!.input_tokens).toBeGreaterThan(run.steps[1]!.input_tokens);
  });

  it('Responses with the whole history (and items sent back by reference), and Messages in a Thread: counted as bench serve counts them', async () => {
    const run = openRun({ max_steps: 10 }, { url: bare.url });
    simUsage.length = 0;
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'Collect sources.' }];
    for (let i = 0; i < 3; i++) {
      const r = await run.openai.responses.create({
        model: 'm',
        instructions: 'You are an agent.',
        input,
        tools: responseTools,
      });
      // As the AI SDK sends them with store on: the answer's items by reference.
      for (const o of r.output) input.push({ type: 'item_reference', id: o.id! } as never);
      for (const o of r.output)
        if (o.type === 'function_call')
          input.push({ type: 'function_call_output', call_id: o.call_id, output: `result for ${o.call_id}` });
    }
    let previous: string | undefined;
    let turn: Anthropic.MessageParam[] = [{ role: 'user', content: 'Collect sources.' }];
    for (let i = 0; i < 3; i++) {
      const thread = previous ? { type: 'continue', previous_message_id: previous } : { type: 'create' };
      const m = await run.anthropic.messages.create({
        model: 'm',
        max_tokens: 256,
        ...(previous ? {} : { system: 'You are an agent.', tools: messageTools }),
        messages: turn,
        thread,
      } as never);
      previous = m.id;
      turn = [
        {
          role: 'user',
          content: m.content
            .filter((b) => b.type === 'tool_use')
            .map((b) => ({ type: 'tool_result' as const, tool_use_id: b.id, content: `result for ${b.id}` })),
        },
      ];
    }
    const whole = (u: Record<string, number>) =>
      u.prompt_tokens === undefined
        ? (u.input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0)
        : u.prompt_tokens;
    expect(run.steps.map((s) => s.usage_source)).toEqual(Array(6).fill('counted'));
    expect(run.steps.map((s) => [s.input_tokens, s.output_tokens])).toEqual(
      simUsage.map((u) => [whole(u), u.output_tokens]),
    );
  });
});

describe('a scripted upstream of each protocol', () => {
  let anthropicUp: StubUpstream;
  let responsesUp: StubUpstream;
  const headers: Array<Record<string, string | string[] | undefined>> = [];
  // 200 cache writes: 150 for five minutes, 50 for an hour (billed at their own rate).
  const anthropicUsage = {
    input_tokens: 50,
    cache_read_input_tokens: 1000,
    cache_creation_input_tokens: 200,
    cache_creation: { ephemeral_5m_input_tokens: 150, ephemeral_1h_input_tokens: 50 },
    output_tokens: 40,
  };
  beforeAll(async () => {
    anthropicUp = await stubUpstream((req, res, body) => {
      headers.push(req.headers);
      const sent = JSON.parse(body) as { messages: unknown[] };
      if (sent.messages.length > 1) {
        // An error that quotes the key it was sent: the agent must not see the key.
        res.writeHead(529, { 'content-type': 'application/json' });
        return res.end(
          JSON.stringify({
            type: 'error',
            error: { type: 'overloaded_error', message: `Overloaded (key ${String(req.headers['x-api-key'])})` },
          }),
        );
      }
      sendJson(
        res,
        JSON.stringify({
          id: 'msg_stub1',
          type: 'message',
          role: 'assistant',
          model: 'claude-stub',
          content: [
            { type: 'text', text: 'Looking.' },
            { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 'loop cost' } },
          ],
          stop_reason: 'tool_use',
          stop_sequence: null,
          usage: anthropicUsage,
        }),
      );
    });
    responsesUp = await stubUpstream((req, res) => {
      headers.push(req.headers);
      const usage = {
        input_tokens: 100,
        input_tokens_details: { cached_tokens: 20 },
        output_tokens: 50,
        output_tokens_details: { reasoning_tokens: 30 },
        total_tokens: 150,
      };
      const response = {
        id: 'resp_stub1',
        object: 'response',
        status: 'completed',
        model: 'o4-stub',
        output: [
          {
            id: 'msg_1',
            type: 'message',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: 'Done: 338350.', annotations: [] }],
          },
        ],
        usage,
      };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        `event: response.created\ndata: ${JSON.stringify({ type: 'response.created', response: { ...response, status: 'in_progress', output: [], usage: null } })}\n\nevent: response.completed\ndata: ${JSON.stringify({ type: 'response.completed', response })}\n\n`,
      );
    });
  });
  afterAll(async () => {
    await anthropicUp.close();
    await responsesUp.close();
  });

  it("Anthropic: the upstream key in x-api-key with the agent's anthropic-version, never seen by the agent; cache reads and writes kept apart and priced at their rates; its errors passed on redacted", async () => {
    const run = openRun({ max_steps: 10 }, { url: anthropicUp.url, apiKey: UPSTREAM_KEY, speaks: 'anthropic' }, CLAUDE);
    headers.length = 0;
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Collect sources.' }];
    // A long system prompt, as a cached one is: the usage below must be plausible for what is sent.
    const system = 'You are an agent. '.repeat(250);
    const m = await run.anthropic.messages.create(
      { model: 'claude-x', max_tokens: 256, system, messages, tools: messageTools },
      { headers: { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'some-beta-2025' } },
    );
    expect(headers[0]).toMatchObject({
      'x-api-key': UPSTREAM_KEY,
      'anthropic-version': '2023-06-01',
      'anthropic-beta': 'some-beta-2025',
    });
    expect(headers[0]!.authorization).toBeUndefined();
    expect(m.usage).toMatchObject(anthropicUsage);
    expect(run.steps[0]).toMatchObject({
      input_tokens: 1250,
      cached_tokens: 1000,
      cache_write_tokens: 200,
      cache_write_1h_tokens: 50,
      output_tokens: 40,
      usage_source: 'provider',
    });
    expect(run.steps[0]!.cost_usd).toBeCloseTo((50 * 3 + 1000 * 0.3 + 150 * 3.75 + 50 * 6 + 40 * 15) / 1e6, 12);
    messages.push(
      { role: 'assistant', content: m.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }] },
    );
    const failed = await run.anthropic.messages
      .create({ model: 'claude-x', max_tokens: 256, system, messages, tools: messageTools }, { maxRetries: 0 })
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(Anthropic.APIError);
    expect(failed).toMatchObject({ status: 529, error: { error: { type: 'overloaded_error' } } });
    expect(
      JSON.stringify([String(failed), (failed as InstanceType<typeof Anthropic.APIError>).error, run.steps]),
    ).not.toContain(UPSTREAM_KEY);
    // A Chat Completions call has no upstream in this run: refused, before it is admitted.
    const chat = await run.openai.chat.completions
      .create({ model: 'x', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(chat).toMatchObject({ status: 400, code: 'loopbench_no_openai_upstream' });
    expect(run.steps).toHaveLength(3);
    expect(run.steps[2]).toMatchObject({ input_tokens: 0, cost_usd: 0 });
    expect(run.steps[2]!.error).toMatch(
      /^refused by the gateway \(HTTP 400 loopbench_no_openai_upstream\): This run's upstream speaks Anthropic Messages/,
    );
  });

  it("Responses: reasoning tokens recorded as part of the output and priced at their rate, from the stream's final event", async () => {
    const run = openRun({ max_steps: 10 }, { url: responsesUp.url, apiKey: UPSTREAM_KEY, speaks: 'openai' }, O4);
    headers.length = 0;
    const r = await run.openai.responses.stream({ model: 'o4-mini', input: 'Compute it.' }).finalResponse();
    expect(r.output_text).toBe('Done: 338350.');
    expect(headers[0]).toMatchObject({ authorization: `Bearer ${UPSTREAM_KEY}` });
    expect(run.steps[0]).toMatchObject({
      input_tokens: 100,
      cached_tokens: 20,
      output_tokens: 50,
      reasoning_tokens: 30,
    });
    expect(run.steps[0]!.cost_usd).toBeCloseTo(callCost(O4, 100, 50, 20, { reasoning: 30 }), 15);
    expect(run.steps[0]!.cost_usd).toBeCloseTo((80 * 1.1 + 20 * 0.275 + 20 * 4.4 + 30 * 5) / 1e6, 15);
    const messages = await run.anthropic.messages
      .create({ model: 'x', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }, { maxRetries: 0 })
      .catch((e: unknown) => e);
    expect(messages).toMatchObject({
      status: 400,
      error: { error: { details: { error_code: 'loopbench_no_anthropic_upstream' } } },
    });
  });
});

it('a spinning agent: the answer the brake withholds is billed and marked withheld', async () => {
  const run = openRun({ max_steps: 30, max_repeat: 2 }, { model: 'autogpt-recursive-verification' });
  const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'Verify it.' }];
  let refused: unknown = null;
  for (let i = 0; i < 30 && !refused; i++)
    refused = await responsesTurn(run.openai, input, false).then(
      () => null,
      (e: unknown) => e,
    );
  expect(refused).toMatchObject({ status: 403, code: 'loopbench_spin' });
  expect(run.steps.at(-1)).toMatchObject({ withheld: true });
  expect(run.steps.filter((s) => s.withheld)).toHaveLength(1);
  expect(run.meter.stop?.reason).toBe('spin');
});

it('metering stays linear in a run’s length: a call of either protocol tokenizes what it adds (and its last message again), never the history', async () => {
  const counter = new TokenCounter();
  const g = await Gateway.start({ host: '127.0.0.1', port: 0, counter });
  try {
    const open = () => {
      const meter = new RunMeter(`linear-${++runs}`, 'cfg', gatewaySettings({ max_steps: 40 }), () => undefined);
      return g.open({
        meter,
        upstream: { url: sim.url, model: 'seed-calibrated', seed: 3, timeoutMs: 10_000 },
      });
    };
    const openai = new OpenAI({ apiKey: open(), baseURL: g.url, maxRetries: 0 });
    const anthropic = new Anthropic({ apiKey: open(), baseURL: g.url.replace(/\/v1$/, ''), maxRetries: 0 });
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'Collect sources.' }];
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Collect sources.' }];
    const added: number[] = [];
    for (let i = 0; i < 20; i++) {
      const before = counter.tokenizations;
      await responsesTurn(openai, input, false);
      await messagesTurn(anthropic, messages, false);
      added.push(counter.tokenizations - before);
    }
    // Per call of either: the answer (counted as output, then known as input), the new tool result, and the request's last message once more; never the history.
    expect(Math.max(...added.slice(1))).toBeLessThanOrEqual(2 * 3);
  } finally {
    await g.close();
  }
});
