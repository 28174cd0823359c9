// The metering gateway as agents meet it: the official openai SDK with a virtual key, in front of a
// real `bench serve` on 127.0.0.1 (the upstream), brakes that refuse calls with errors SDKs do not
// retry, and an upstream key that never leaves the gateway.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StepRecord } from '../src/contracts/records.ts';
import { SEED_LIMITS, type Limits, type Price, type Settings } from '../src/contracts/settings.ts';
import { UNKNOWN_MAX_OUTPUT_TOKENS } from '../src/gateway/answer-limit.ts';
import { Gateway, RUN_HEADER, type GatewayRun } from '../src/gateway/gateway.ts';
import { RunMeter } from '../src/gateway/run-meter.ts';
import { Cassette } from '../src/models/cassette.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { callCost } from '../src/meter/pricing.ts';
import { TokenCounter } from '../src/meter/tokens.ts';
import type { RunningServer } from '../src/serve/server.ts';
import { serve } from './serve-helpers.ts';

const counter = new TokenCounter();
const PRICE = { model: 'gpt-4o-mini', input_per_1m: 0.15, cached_input_per_1m: 0.075, output_per_1m: 0.6 };
const UPSTREAM_KEY = 'upstream-SECRET-0f9e8d7c';

let upstream: RunningServer;
let gateway: Gateway;
let runs = 0;

beforeAll(async () => {
  upstream = await serve();
  gateway = await Gateway.start({ host: '127.0.0.1', port: 0, counter });
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

function settings(limits: Partial<Limits>): Settings {
  return {
    scenario: 'external',
    model: 'sim',
    limits: { ...SEED_LIMITS, timeout_s: null, max_cost_usd: null, ...limits },
    reflection: 'off',
    max_reflections: 2,
    context: 'full',
    price: PRICE,
    prompt_cache: false,
    max_output_tokens: 300,
    seed: 5,
    repeat: 0,
    agent: {},
  };
}

/** A run on the gateway, with its virtual key, its steps, and an SDK client that uses the key. */
function openRun(
  limits: Partial<Limits>,
  profile = 'seed-calibrated',
  o: { url?: string; apiKey?: string; tape?: GatewayRun['tape']; price?: Price } = {},
) {
  const steps: StepRecord[] = [];
  const meter = new RunMeter(
    `run-${++runs}`,
    'cfg',
    { ...settings(limits), ...(o.price ? { price: o.price } : {}) },
    (r) => steps.push(r),
    {
      keepLog: true,
    },
  );
  const key = gateway.open({
    meter,
    upstream: { url: o.url ?? upstream.url, model: profile, seed: 5, timeoutMs: 10_000, apiKey: o.apiKey },
    ...(o.tape ? { tape: o.tape } : {}),
  });
  const client = new OpenAI({ apiKey: key, baseURL: gateway.url, maxRetries: 2 });
  return { meter, key, steps, client };
}

const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'lookup',
      parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    },
  },
];

/** One ReAct turn: ask, then answer each tool call, as an agent would. */
async function turn(
  client: OpenAI,
  messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[],
  extra: Partial<OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming> = {},
) {
  const r = await client.chat.completions.create({ model: 'whatever-the-agent-says', messages, tools, ...extra });
  const m = r.choices[0]!.message;
  messages.push(m);
  for (const c of m.tool_calls ?? [])
    messages.push({ role: 'tool', tool_call_id: c.id, content: `result for ${c.id}` });
  return r;
}

const start = (): OpenAI.Chat.Completions.ChatCompletionMessageParam[] => [
  { role: 'system', content: 'You are an agent.' },
  { role: 'user', content: 'Collect sources.' },
];
/** The prompt of start() as the gateway counts it. */
const PROBE = counter.prompt(start() as never);
/** A model's max output, as a pricing table gives it. */
const MAX_OUT = 32_000;

/** An upstream that records each request's body and answers 'ok' with the prompt as counted and `output(body)` output tokens. */
async function capturing(output: (body: Record<string, unknown>) => number) {
  const bodies: Array<Record<string, unknown>> = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (d: Buffer) => (text += d.toString()));
    req.on('end', () => {
      const body = JSON.parse(text) as Record<string, unknown>;
      bodies.push(body);
      const completion = output(body);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'c1',
          object: 'chat.completion',
          created: 0,
          model: 'm',
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: PROBE, completion_tokens: completion, total_tokens: PROBE + completion },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    bodies,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => new Promise((r) => server.close(r)),
  };
}

describe('runs and keys', () => {
  it('meters each call of a run by its virtual key: one StepRecord per call, usage as the upstream billed it', async () => {
    const run = openRun({ max_steps: 10 });
    const messages = start();
    const a = await turn(run.client, messages);
    const b = await turn(run.client, messages);
    expect(run.steps.map((s) => [s.step, s.input_tokens, s.output_tokens])).toEqual([
      [1, a.usage!.prompt_tokens, a.usage!.completion_tokens],
      [2, b.usage!.prompt_tokens, b.usage!.completion_tokens],
    ]);
    expect(run.steps[1]!.cum_cost_usd).toBeCloseTo(
      callCost(PRICE, a.usage!.prompt_tokens, a.usage!.completion_tokens, 0) +
        callCost(PRICE, b.usage!.prompt_tokens, b.usage!.completion_tokens, 0),
      12,
    );
    // The sim is only ever offered the agent's tool.
    expect(run.steps.map((s) => s.action)).toEqual(['lookup', 'lookup']);
  });

  it('refuses an unknown virtual key, and a request with no run, with 401', async () => {
    const stranger = new OpenAI({ apiKey: 'lb-not-a-real-key', baseURL: gateway.url, maxRetries: 0 });
    await expect(stranger.chat.completions.create({ model: 'x', messages: start() })).rejects.toBeInstanceOf(
      OpenAI.AuthenticationError,
    );
    const anonymous = new OpenAI({ apiKey: 'sk-anything', baseURL: gateway.url, maxRetries: 0 });
    await expect(anonymous.chat.completions.create({ model: 'x', messages: start() })).rejects.toBeInstanceOf(
      OpenAI.AuthenticationError,
    );
  });

  it('a key stops working when its run ends', async () => {
    const run = openRun({ max_steps: 10 });
    await turn(run.client, start());
    gateway.end(run.key);
    await expect(turn(run.client, start())).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  });

  it('identifies a run by the x-loopbench-run header too', async () => {
    const steps: StepRecord[] = [];
    const g = await Gateway.start({
      host: '127.0.0.1',
      port: 0,
      counter,
      runForHeader: (id) => ({
        meter: new RunMeter(id, 'cfg', settings({ max_steps: 5 }), (r) => steps.push(r)),
        upstream: { url: upstream.url, model: 'seed-calibrated', timeoutMs: 10_000 },
      }),
    });
    try {
      const client = new OpenAI({
        apiKey: 'unused',
        baseURL: g.url,
        maxRetries: 0,
        defaultHeaders: { [RUN_HEADER]: 'my-run-1' },
      });
      await turn(client, start());
      expect(steps.map((s) => s.run_id)).toEqual(['my-run-1']);
    } finally {
      await g.close();
    }
  });

  it('will not listen beyond loopback without --auth-token', async () => {
    await expect(Gateway.start({ host: '0.0.0.0', port: 0, counter })).rejects.toThrow(/--auth-token/);
  });
});

describe('brakes at the gateway', () => {
  it('max_steps: the call past the limit gets a 403 loopbench_max_steps that the SDK does not retry', async () => {
    const run = openRun({ max_steps: 3 });
    const messages = start();
    for (let i = 0; i < 3; i++) await turn(run.client, messages);
    const refused = await turn(run.client, messages).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.PermissionDeniedError);
    const e = refused as InstanceType<typeof OpenAI.PermissionDeniedError>;
    expect(e.status).toBe(403);
    expect(e.code).toBe('loopbench_max_steps');
    expect(e.message).toMatch(/max_steps.*3 of 3/);
    // maxRetries 2, yet one refusal: nothing was retried, and nothing more reached the upstream.
    expect(run.meter.state.steps).toBe(3);
    expect(run.meter.stop?.reason).toBe('max_steps');
    // The refused call is recorded: its error, no usage, no step of its own.
    expect(run.steps.map((s) => [s.step, s.call, s.input_tokens, s.cost_usd > 0, s.error])).toEqual([
      [1, 1, run.steps[0]!.input_tokens, true, null],
      [2, 2, run.steps[1]!.input_tokens, true, null],
      [3, 3, run.steps[2]!.input_tokens, true, null],
      [3, 4, 0, false, `refused by the gateway (HTTP 403 loopbench_max_steps): ${e.message.replace(/^403 /, '')}`],
    ]);
  });

  it('max_cost holds at its worst case with many calls of one run in flight at once', async () => {
    // Each call projects its prompt plus the 300 tokens it asks for; the budget fits 3 such calls, not 4 (nor a 4th lowered below --max-output-tokens, 300).
    const probe = counter.prompt(
      start().map((m) => ({ role: m.role, content: m.content as string })) as never,
      tools as never,
    );
    const worst = callCost(PRICE, probe, 300, 0);
    const run = openRun({ max_steps: 100, max_cost_usd: worst * 3.5 });
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () =>
        run.client.chat.completions.create({ model: 'm', messages: start(), tools, max_tokens: 300 }),
      ),
    );
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results
      .filter((r) => r.status === 'rejected')
      .map((r) => (r as PromiseRejectedResult).reason as { code: string });
    expect(ok).toHaveLength(3);
    expect(refused.every((e) => e.code === 'loopbench_max_cost')).toBe(true);
    expect(run.meter.state.costUsd).toBeLessThanOrEqual(worst * 3.5);
  });

  it("leaves the agent's answer limit as it sent it, absent included, when no budget needs a ceiling", async () => {
    const up = await capturing(() => 1);
    try {
      for (const limits of [{ max_cost_usd: null }, { max_cost_usd: 0.5 }]) {
        up.bodies.length = 0;
        const run = openRun({ max_steps: 10, ...limits }, 'm', { url: up.url });
        await run.client.chat.completions.create({ model: 'm', messages: start(), max_tokens: 5000 });
        await run.client.chat.completions.create({ model: 'm', messages: start(), max_completion_tokens: 20 });
        await run.client.chat.completions.create({ model: 'm', messages: start() });
        expect(up.bodies.map((b) => [b.max_tokens, b.max_completion_tokens])).toEqual([
          [5000, undefined],
          [undefined, 20],
          [undefined, undefined],
        ]);
        expect(run.steps.some((r) => r.max_output_lowered)).toBe(false);
        // What only the sim refuses (n > 1) goes to a provider as the agent sent it.
        await run.client.chat.completions.create({ model: 'm', messages: start(), n: 2 });
        expect(up.bodies[3]!.n).toBe(2);
      }
    } finally {
      await up.close();
    }
  });

  it('a budget that cannot afford the asked limit lowers it to what the budget leaves, says so in the step, and is never passed', async () => {
    // Upstreams that answer with half, and with all, of what each request allows (the worst case).
    for (const share of [0.5, 1]) {
      const up = await capturing((b) => Math.ceil(share * ((b.max_tokens as number | undefined) ?? MAX_OUT)));
      const price = { ...PRICE, max_output_tokens: MAX_OUT };
      try {
        for (const asked of [64_000, null]) {
          up.bodies.length = 0;
          const budget = 3.5 * callCost(PRICE, PROBE, 8000, 0);
          const run = openRun({ max_steps: 100, max_cost_usd: budget }, 'm', { url: up.url, price });
          let refused: { code?: string } | null = null;
          while (!refused)
            refused = await run.client.chat.completions
              .create({ model: 'm', messages: start(), ...(asked !== null ? { max_tokens: asked } : {}) })
              .then(() => null)
              .catch((e: { code?: string }) => e);
          expect(refused.code).toBe('loopbench_max_cost');
          expect(run.meter.state.costUsd).toBeLessThanOrEqual(budget);
          // Each sent limit is the most the budget left: one token more could have passed it.
          let spent = 0;
          // The last is the refused call, recorded with its error.
          expect(run.steps.at(-1)!.error).toMatch(/^refused by the gateway \(HTTP 403 loopbench_max_cost\)/);
          const answered = run.steps.slice(0, -1);
          for (const [i, step] of answered.entries()) {
            const sent = up.bodies[i]!.max_tokens as number;
            expect(step.max_output_lowered).toEqual({ asked, sent });
            expect(spent + callCost(PRICE, PROBE, sent, 0)).toBeLessThanOrEqual(budget);
            expect(spent + callCost(PRICE, PROBE, sent + 1, 0)).toBeGreaterThan(budget);
            spent += step.cost_usd;
          }
          // It stops where the built-in loops stop: when not even --max-output-tokens (300) fits.
          expect(budget - spent).toBeLessThan(callCost(PRICE, PROBE, 300, 0));
          // The worst upstream takes all the first call allowed; a thriftier one gets a few calls, each lowered.
          if (share === 1) expect(answered).toHaveLength(1);
          else expect(answered.length).toBeGreaterThan(2);
        }
      } finally {
        await up.close();
      }
    }
  });

  it("without a limit of its own, a call's worst case is the model's max output, else 128,000 tokens: affordable, the request is left as sent", async () => {
    const up = await capturing(() => 1);
    try {
      for (const [price, worst] of [
        [{ ...PRICE, max_output_tokens: MAX_OUT }, MAX_OUT],
        [PRICE, UNKNOWN_MAX_OUTPUT_TOKENS],
      ] as const) {
        const fits = openRun({ max_cost_usd: callCost(PRICE, PROBE, worst, 0) }, 'm', { url: up.url, price });
        await fits.client.chat.completions.create({ model: 'm', messages: start() });
        expect(up.bodies.at(-1)!.max_tokens).toBeUndefined();
        const short = openRun({ max_cost_usd: callCost(PRICE, PROBE, worst - 1, 0) }, 'm', { url: up.url, price });
        await short.client.chat.completions.create({ model: 'm', messages: start() });
        expect(up.bodies.at(-1)!.max_tokens).toBe(worst - 1);
        expect(short.steps[0]!.max_output_lowered).toEqual({ asked: null, sent: worst - 1 });
      }
    } finally {
      await up.close();
    }
  });

  it('spin: the answer whose tool call would be the (max_repeat+1)-th identical action is withheld', async () => {
    // recursive-verify: a varied call, then the same fixed call, again and again.
    const run = openRun({ max_steps: 50, max_repeat: 2 }, 'autogpt-recursive-verification');
    const messages = start();
    const seen: string[] = [];
    let refused: unknown = null;
    for (let i = 0; i < 10 && !refused; i++) {
      try {
        const r = await turn(run.client, messages);
        seen.push(
          r.choices[0]!.message.tool_calls![0]!.type === 'function'
            ? (r.choices[0]!.message.tool_calls![0] as { function: { arguments: string } }).function.arguments
            : '',
        );
      } catch (e) {
        refused = e;
      }
    }
    expect((refused as { code: string }).code).toBe('loopbench_spin');
    // Delivered: varied, fixed, varied, fixed, varied; the sixth (fixed, third time) was withheld.
    expect(seen).toHaveLength(5);
    expect(seen[1]).toBe(seen[3]);
    expect(run.meter.state.calls).toBe(6);
    expect(run.steps[5]!.fingerprint).toBe(run.steps[3]!.fingerprint);
    expect(run.meter.stop?.reason).toBe('spin');
  });
});

describe('streaming through the gateway', () => {
  it('passes the stream on whole, and meters the usage the upstream reported', async () => {
    const run = openRun({ max_steps: 10 });
    const stream = await run.client.chat.completions.create({
      model: 'm',
      messages: start(),
      tools,
      stream: true,
      stream_options: { include_usage: true },
    });
    let usage: OpenAI.CompletionUsage | undefined;
    let args = '';
    for await (const chunk of stream) {
      if (chunk.usage) usage = chunk.usage;
      args += chunk.choices[0]?.delta?.tool_calls?.[0]?.function?.arguments ?? '';
    }
    expect(JSON.parse(args)).toHaveProperty('q');
    expect(usage!.prompt_tokens).toBe(run.steps[0]!.input_tokens);
    expect(usage!.completion_tokens).toBe(run.steps[0]!.output_tokens);
    expect(run.steps[0]!.action).toBe('lookup');
  });

  it('meters a stream even when the agent did not ask for usage, and does not send it one', async () => {
    const run = openRun({ max_steps: 10 });
    const stream = await run.client.chat.completions.create({ model: 'm', messages: start(), tools, stream: true });
    for await (const chunk of stream) expect(chunk.usage ?? null).toBeNull();
    expect(run.steps[0]!.input_tokens).toBeGreaterThan(0);
    expect(run.steps[0]!.output_tokens).toBeGreaterThan(0);
  });
});

describe('the upstream key', () => {
  it('goes to the upstream only: not in errors, records or transcripts, even when the upstream echoes it', async () => {
    let received = '';
    // A provider that rejects the key and quotes it back, as real providers partly do.
    const echo = http.createServer((req, res) => {
      received = req.headers.authorization ?? '';
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: {
            message: `Incorrect API key provided: ${received.slice(7)}`,
            type: 'invalid_request_error',
            code: 'invalid_api_key',
          },
        }),
      );
    });
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    try {
      const run = openRun({ max_steps: 5 }, 'gpt-4o-mini', {
        url: `http://127.0.0.1:${(echo.address() as AddressInfo).port}/v1`,
        apiKey: UPSTREAM_KEY,
      });
      const err = await run.client.chat.completions.create({ model: 'm', messages: start() }).catch((e: Error) => e);
      expect(received).toBe(`Bearer ${UPSTREAM_KEY}`);
      expect(String(err)).not.toContain(UPSTREAM_KEY);
      expect(JSON.stringify((err as { error?: unknown }).error)).not.toContain(UPSTREAM_KEY);
      expect(run.steps[0]!.error).toMatch(/upstream 401/);
      expect(JSON.stringify(run.steps)).not.toContain(UPSTREAM_KEY);
      expect(JSON.stringify(run.meter.log)).not.toContain(UPSTREAM_KEY);
    } finally {
      await new Promise((r) => echo.close(r));
    }
  });
});

describe('a cassette through the gateway', () => {
  it('replays a recorded streamed answer as the same stream, with the recorded usage, without the upstream', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-gw-tape-')), 'c.json');
    const cassette = Cassette.open(file);
    const collect = async (client: OpenAI) => {
      const stream = await client.chat.completions.create({
        model: 'm',
        messages: start(),
        tools,
        stream: true,
        stream_options: { include_usage: true },
      });
      let args = '';
      let content = '';
      let usage: OpenAI.CompletionUsage | undefined;
      for await (const chunk of stream) {
        content += chunk.choices[0]?.delta?.content ?? '';
        args += chunk.choices[0]?.delta?.tool_calls?.[0]?.function?.arguments ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
      return { content, args, prompt: usage?.prompt_tokens, completion: usage?.completion_tokens };
    };
    const live = await collect(
      openRun({ max_steps: 5 }, 'seed-calibrated', { tape: { spec: 'sim', scenario: 's', record: cassette } }).client,
    );
    cassette.save();
    expect(live.args).not.toBe('');
    const replayTape = { spec: 'sim', scenario: 's', replay: Cassette.load(file) };
    // The upstream URL leads nowhere: a replayed call must not need it.
    const replayed = openRun({ max_steps: 5 }, 'seed-calibrated', { url: 'http://127.0.0.1:9/v1', tape: replayTape });
    expect(await collect(replayed.client)).toEqual(live);
    expect(replayed.steps[0]).toMatchObject({ input_tokens: live.prompt, output_tokens: live.completion, error: null });
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });
});
