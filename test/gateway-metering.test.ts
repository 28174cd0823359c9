// The gateway must not have the disease it measures: metering a call costs what the call adds to
// its run's conversation, not its whole history; what reaches the upstream is the agent's own bytes;
// what it holds is bounded by its open runs; records are written in batches, and none is lost.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { ChatMessage } from '../src/contracts/chat.ts';
import type { StepRecord } from '../src/contracts/records.ts';
import { gatewayOptions } from '../src/cli/serve.ts';
import { Gateway, RUN_HEADER } from '../src/gateway/gateway.ts';
import { RunMeter } from '../src/gateway/run-meter.ts';
import { startStandaloneGateway } from '../src/gateway/standalone.ts';
import { TokenCounter } from '../src/meter/tokens.ts';
import {
  completionWith,
  gatewaySettings,
  postRaw,
  sendJson,
  stubUpstream,
  TOOL_ANSWER,
} from './helpers/stub-upstream.ts';
import { SERVE_FLAGS } from './helpers/serve-flags.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-gw-metering-'));
const open: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const o of open.reverse()) await o.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** An upstream that answers every call with a tool call and plausible usage (the request's bytes ÷ 4). */
const answering = () =>
  stubUpstream((_req, res, body) =>
    sendJson(res, completionWith({ prompt_tokens: Math.ceil(body.length / 4), completion_tokens: 12 })),
  );

const toolResult = (i: number) => `Result ${i}: ${'agent loops re-send their whole history, '.repeat(40)}`;

const TOOLS = [
  {
    type: 'function' as const,
    function: { name: 'search', parameters: { type: 'object', properties: { query: { type: 'string' } } } },
  },
];

/** An agent's conversation, grown a step a call: the answer it got back (as sent) and its tool's result. */
function conversation() {
  const messages: Array<Record<string, unknown>> = [
    { role: 'system', content: 'You are a research agent.' },
    { role: 'user', content: 'Collect sources on what agent loops cost.' },
  ];
  return {
    messages,
    body: (extra: Record<string, unknown> = {}) =>
      JSON.stringify({ model: 'gpt-4o-mini', messages, tools: TOOLS, ...extra }),
    add(answer: Record<string, unknown>, i: number) {
      messages.push(answer, { role: 'tool', tool_call_id: 'call_1', content: toolResult(i) });
    },
  };
}

/** A counter that keeps count of the text it tokenizes. */
class CountingCounter extends TokenCounter {
  messagesTokenized = 0;
  override message(m: ChatMessage): number {
    this.messagesTokenized++;
    return super.message(m);
  }
}

/** A run on `gateway` in front of `upstreamUrl`: its steps, and a call that sends a body and returns the answer's message. */
function meteredRun(gateway: Gateway, upstreamUrl: string, id: string) {
  const steps: StepRecord[] = [];
  const meter = new RunMeter(id, 'c', gatewaySettings(), (r) => steps.push(r));
  const key = gateway.open({ meter, upstream: { url: upstreamUrl, timeoutMs: 5000 } });
  const send = async (body: string) => {
    const res = await postRaw(gateway.url, body, { authorization: `Bearer ${key}` });
    expect(res.status).toBe(200);
    return (res.json.choices as Array<{ message: Record<string, unknown> }>)[0]!.message;
  };
  return { meter, steps, send };
}

/** The input tokens of a whole request, counted afresh. */
const freshCount = (messages: unknown) =>
  new TokenCounter().prompt(JSON.parse(JSON.stringify(messages)) as ChatMessage[], TOOLS);

describe('metering is linear in a run’s length', () => {
  it('a call tokenizes only what it adds, and its input tokens are those of the whole conversation', async () => {
    const stub = await answering();
    const lying = await stubUpstream((_req, res) =>
      sendJson(res, completionWith({ prompt_tokens: -1, completion_tokens: 12 })),
    );
    const counter = new CountingCounter();
    const gateway = await Gateway.start({ host: '127.0.0.1', port: 0, counter });
    open.push(stub, lying, gateway);
    const run = meteredRun(gateway, stub.url, 'linear');
    const c = conversation();
    const CALLS = 40;
    for (let i = 0; i < CALLS; i++) c.add(await run.send(c.body()), i);
    // 2 messages at first, then each call adds the answer (known from counting it as output) and a tool result.
    expect(counter.messagesTokenized).toBe(2 + (CALLS - 1));
    expect(run.steps.every((s) => s.usage_source === 'provider')).toBe(true);
    expect(run.meter.log).toHaveLength(0);
    // loopbench's own count is what a lying upstream gets replaced by: check it call by call against a fresh count.
    const liar = meteredRun(gateway, lying.url, 'lying');
    const d = conversation();
    const expected: number[] = [];
    for (let i = 0; i < 12; i++) {
      expected.push(freshCount(d.messages));
      d.add(await liar.send(d.body()), i);
    }
    expect(liar.steps.map((x) => x.input_tokens)).toEqual(expected);
  });

  it('a conversation that is not a growing prefix is still counted right (an edited system prompt, a dropped message)', async () => {
    const silent = await stubUpstream((_req, res) => sendJson(res, completionWith(undefined)));
    const counter = new CountingCounter();
    const gateway = await Gateway.start({ host: '127.0.0.1', port: 0, counter });
    open.push(silent, gateway);
    const run = meteredRun(gateway, silent.url, 'edits');
    const c = conversation();
    for (let i = 0; i < 4; i++) c.add(TOOL_ANSWER, i);
    const expected: number[] = [];
    const send = async () => {
      expected.push(freshCount(c.messages));
      await run.send(c.body());
    };
    await send();
    const before = counter.messagesTokenized;
    c.messages[0] = { role: 'system', content: 'You are a research agent. Today is Tuesday.' };
    await send();
    // Only the changed system prompt was tokenized again: the rest matched where it was.
    expect(counter.messagesTokenized - before).toBe(1);
    c.messages.splice(2, 2);
    await send();
    expect(run.steps.map((s) => s.input_tokens)).toEqual(expected);
  });
});

describe('what reaches the upstream', () => {
  it("is the agent's bytes as sent, with only the fields the gateway sets spliced in", async () => {
    const stub = await answering();
    const gateway = await Gateway.start({ host: '127.0.0.1', port: 0, counter: new TokenCounter() });
    open.push(stub, gateway);
    const meter = new RunMeter('raw', 'c', gatewaySettings(), () => undefined);
    const key = gateway.open({
      meter,
      upstream: { url: stub.url, timeoutMs: 5000, model: 'the-runs-model', seed: 7 },
    });
    // Spacing, a float written 1.0, an escaped character, key order in an unknown field, the agent's max_tokens (the budget affords it): none of it is the gateway's to change.
    const body =
      '{ "model" : "agent-model",\n  "temperature": 1.0, "x_vendor": {"b": 1, "a": [2.50, "\\u00e9"]},\n  "messages": [{"role": "user", "content": "caf\\u00e9?"}], "max_tokens": 5000 }';
    expect((await postRaw(gateway.url, body, { authorization: `Bearer ${key}` })).status).toBe(200);
    expect(stub.bodies[0]).toBe(
      '{ "model" : "the-runs-model",\n  "temperature": 1.0, "x_vendor": {"b": 1, "a": [2.50, "\\u00e9"]},\n  "messages": [{"role": "user", "content": "caf\\u00e9?"}], "max_tokens": 5000 ,"seed":7}',
    );
  });

  it('a body that names a field twice is refused: JSON.parse keeps the last, a splice the first (max_tokens smuggled past the budget)', async () => {
    const stub = await answering();
    const gateway = await Gateway.start({ host: '127.0.0.1', port: 0, counter: new TokenCounter() });
    open.push(stub, gateway);
    const meter = new RunMeter('dup', 'c', gatewaySettings(), () => undefined);
    const key = gateway.open({ meter, upstream: { url: stub.url, timeoutMs: 5000 } });
    for (const twice of ['"max_tokens": 100, "max_tokens": 100000', '"max_tokens": 100, "max\\u005ftokens": 100000']) {
      const res = await postRaw(
        gateway.url,
        `{"model": "m", "messages": [{"role": "user", "content": "hi"}], ${twice}}`,
        { authorization: `Bearer ${key}` },
      );
      expect(res.status).toBe(400);
      expect(res.json.error!.message).toMatch(/gives 'max_tokens' more than once/);
    }
    expect(stub.bodies).toHaveLength(0);
  });

  it('refuses what it reads when it is not valid, in the words bench serve uses', async () => {
    const gateway = await Gateway.start({ host: '127.0.0.1', port: 0, counter: new TokenCounter() });
    open.push(gateway);
    const key = gateway.open({
      meter: new RunMeter('bad', 'c', gatewaySettings(), () => undefined),
      upstream: { url: 'http://127.0.0.1:9/v1', timeoutMs: 5000 },
    });
    const post = (body: string) => postRaw(gateway.url, body, { authorization: `Bearer ${key}` });
    expect((await post('')).json.error!.message).toMatch(/Request body is empty/);
    expect((await post('{"model": "m", "messages": [')).json.error!.message).toMatch(/not valid JSON/);
    expect((await post('[1]')).json.error!.message).toMatch(/must be a JSON object/);
    expect((await post('{"model": "m", "messages": []}')).json.error!.message).toMatch(/Invalid value for 'messages'/);
    expect(
      (await post('{"model": "m", "messages": [{"role": "user", "content": "a"}, {"role": "wizard"}]}')).json.error,
    ).toMatchObject({ param: 'messages[1].role' });
    expect(
      (await post('{"model": "m", "messages": [{"role": "user", "content": "a"}], "max_tokens": -3}')).json.error,
    ).toMatchObject({ param: 'max_tokens' });
  });
});

describe('memory and records', () => {
  it("the standalone gateway keeps no call's history, and remembers conversations within its bound", async () => {
    const stub = await answering();
    const gateway = await Gateway.start({
      host: '127.0.0.1',
      port: 0,
      counter: new TokenCounter(),
      conversationBytes: 40_000,
      runForHeader: (id) => ({
        meter: new RunMeter(id, 'c', gatewaySettings(), () => undefined),
        upstream: { url: stub.url, timeoutMs: 5000 },
      }),
    });
    open.push(stub, gateway);
    const c = conversation();
    for (let i = 0; i < 6; i++) c.add(TOOL_ANSWER, i);
    // Each conversation is ~13 KB: of 8 runs, the bound keeps the last few.
    for (let r = 0; r < 8; r++)
      for (let i = 0; i < 3; i++)
        expect((await postRaw(gateway.url, c.body(), { [RUN_HEADER]: `run-${r}` })).status).toBe(200);
    expect(gateway.remembered).toBeLessThanOrEqual(3);
    expect(gateway.remembered).toBeGreaterThan(0);
    for (const run of gateway.runs()) expect(run.meter.log).toHaveLength(0);
    // A forgotten run is counted whole again, and the same.
    const first = gateway.runs().find((r) => r.meter.runId === 'run-0')!;
    const before = first.meter.state.inputTokens;
    await postRaw(gateway.url, c.body(), { [RUN_HEADER]: 'run-0' });
    expect(first.meter.state.inputTokens - before).toBe(before / 3);
  });

  it('steps.jsonl is written in batches, each step within a moment of its call, and every one is there at close', async () => {
    // The upstream answers no call before it holds all of them: the calls end together however slow the machine.
    const CALLS = 30;
    const held: Array<() => void> = [];
    const stub = await stubUpstream((_req, res, body) => {
      held.push(() =>
        sendJson(res, completionWith({ prompt_tokens: Math.ceil(body.length / 4), completion_tokens: 12 })),
      );
      if (held.length === CALLS) for (const answer of held) answer();
    });
    open.push(stub);
    const dir = path.join(tmp, 'batched');
    const flags = {
      ...SERVE_FLAGS,
      upstream: stub.url,
      out: dir,
      steps: 'off',
    };
    const gw = await startStandaloneGateway(gatewayOptions(flags, { OPENAI_API_KEY: 'sk-stub' })!);
    const file = path.join(dir, 'steps.jsonl');
    const writes = vi.spyOn(fs, 'writeSync');
    try {
      await Promise.all(
        Array.from({ length: CALLS }, (_, i) => postRaw(gw.url, conversation().body(), { [RUN_HEADER]: `agent-${i}` })),
      );
      // Every step reaches the file while the gateway still runs (in batches, STEP_FLUSH_MS apart), not at close.
      await expect
        .poll(() => fs.existsSync(file) && fs.readFileSync(file, 'utf8').trim().split('\n').length)
        .toBe(CALLS);
      // Far fewer writes than calls: the calls ended together.
      expect(writes.mock.calls.length).toBeLessThan(CALLS / 3);
    } finally {
      writes.mockRestore();
      await gw.close();
    }
    expect(fs.readFileSync(path.join(dir, 'runs.jsonl'), 'utf8').trim().split('\n')).toHaveLength(30);
  });
});
