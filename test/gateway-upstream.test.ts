// The gateway against an upstream it cannot trust: an answer without end, usage that lies, a stream
// that trickles, an agent that hangs up. Each case is a scripted upstream on 127.0.0.1 and a run
// on the real gateway; what is checked is what the run is billed and what the agent is told.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunRecord, StepRecord } from '../src/contracts/records.ts';
import type { Limits } from '../src/contracts/settings.ts';
import { Gateway, RUN_HEADER } from '../src/gateway/gateway.ts';
import { RunMeter } from '../src/gateway/run-meter.ts';
import { startStandaloneGateway } from '../src/gateway/standalone.ts';
import type { Upstream } from '../src/gateway/upstream.ts';
import { callCost } from '../src/meter/pricing.ts';
import { TokenCounter } from '../src/meter/tokens.ts';
import {
  completionWith,
  gatewaySettings,
  postRaw,
  PRICE,
  sendJson,
  stubUpstream,
  type Handler,
  type StubUpstream,
} from './helpers/stub-upstream.ts';
import { gatewayOptions } from '../src/cli/serve.ts';
import { SERVE_FLAGS } from './helpers/serve-flags.ts';
import { patient } from './helpers/patient.ts';

const counter = new TokenCounter();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-gw-upstream-'));
const open: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const o of open.reverse()) await o.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Waits for a condition (a machine under load is slow, not wrong): the default poll deadline is generous (vitest.config.ts). */
const until = (ok: () => boolean) => expect.poll(ok, { interval: 10 }).toBe(true);

/** An agent's call that allows its answer 300 tokens: the worst case billed when no answer comes. */
const BODY = JSON.stringify({
  model: 'm',
  messages: [
    { role: 'system', content: 'You are an agent.' },
    { role: 'user', content: 'Collect sources on agent loop costs.' },
  ],
  max_tokens: 300,
});

/** A gateway in front of a scripted upstream, and one run on it (more with `run()`). */
async function setup(handle: Handler, limits: Partial<Limits> = {}, up: Partial<Upstream> = {}) {
  const stub = await stubUpstream(handle);
  const gateway = await Gateway.start({ host: '127.0.0.1', port: 0, counter });
  open.push(stub, gateway);
  let n = 0;
  const run = () => {
    const steps: StepRecord[] = [];
    const meter = new RunMeter(`r${++n}`, 'cfg', gatewaySettings(limits), (r) => steps.push(r));
    const key = gateway.open({ meter, upstream: { url: stub.url, timeoutMs: 10_000, ...up } });
    const post = (body = BODY) => postRaw(gateway.url, body, { authorization: `Bearer ${key}` });
    /** The same call, from an agent that hangs up once the upstream has it. */
    const hangUp = async () => {
      const ac = new AbortController();
      const had = stub.bodies.length;
      const call = fetch(`${gateway.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: BODY,
        signal: ac.signal,
      }).catch(() => null);
      await until(() => stub.bodies.length > had);
      ac.abort();
      await call;
    };
    return { meter, steps, post, hangUp };
  };
  return { stub, gateway, run, ...run() };
}

describe('an answer of any size', () => {
  it(
    'is read up to the cap: a larger one is refused in the API error shape, billed, and ends the run as an upstream error',
    async () => {
      let first = true;
      const flood: Handler = (_req, res) => {
        if (first) {
          first = false;
          return sendJson(res, completionWith({ prompt_tokens: 20, completion_tokens: 12 }));
        }
        // 24 MB of one streamed answer, far past the 1 MiB cap of this gateway.
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunk = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'x'.repeat(64 * 1024) } }] })}\n\n`;
        let sent = 0;
        const pump = () => {
          while (sent < 24 * 1024 * 1024 && !res.destroyed) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        pump();
      };
      const g = await setup(flood, {}, { maxAnswerBytes: 1024 * 1024 });
      expect((await g.post()).status).toBe(200);
      const streamed = JSON.stringify({ ...JSON.parse(BODY), stream: true });
      const refused = await g.post(streamed);
      expect(refused.status).toBe(502);
      expect(refused.json.error).toMatchObject({ type: 'upstream_error', code: 'loopbench_upstream_cap' });
      expect(refused.json.error!.message).toMatch(/passed 1 MiB, the most the gateway reads of one answer/);
      // The first call's record is kept; the second is billed (it went out) at its worst case.
      expect(g.steps.map((s) => [s.error === null, s.usage_source])).toEqual([
        [true, 'provider'],
        [false, 'worst_case'],
      ]);
      expect(g.steps[1]!.output_tokens).toBe(300);
      expect(g.meter.stop).toMatchObject({ reason: 'error' });
      expect((await g.post()).json.error).toMatchObject({ code: 'loopbench_error' });
      // The gateway itself is fine: another run is served.
      first = true;
      expect((await g.run().post()).status).toBe(200);
    },
    patient(20_000),
  );

  it('standalone: records taken before the oversized answer reach steps.jsonl and runs.jsonl', async () => {
    let calls = 0;
    const stub = await stubUpstream((_req, res) => {
      if (calls++ === 0) return sendJson(res, completionWith({ prompt_tokens: 20, completion_tokens: 12 }));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(Buffer.alloc(3 * 1024 * 1024, 0x20));
    });
    open.push(stub);
    const dir = path.join(tmp, 'standalone-cap');
    const flags = {
      ...SERVE_FLAGS,
      upstream: stub.url,
      out: dir,
      maxAnswerMb: '1',
      steps: 'off',
      // The stub's model `m` is in no pricing table: a provider's model must be priced.
      priceModel: 'gpt-4o-mini',
    };
    const gw = await startStandaloneGateway(gatewayOptions(flags, { OPENAI_API_KEY: 'sk-stub' })!);
    const post = () => postRaw(gw.url, BODY, { [RUN_HEADER]: 'agent-1' });
    expect((await post()).status).toBe(200);
    expect((await post()).status).toBe(502);
    await gw.close();
    const lines = <T>(f: string) =>
      fs
        .readFileSync(path.join(dir, f), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as T);
    expect(lines<StepRecord>('steps.jsonl').map((s) => s.usage_source)).toEqual(['provider', 'worst_case']);
    expect(lines<RunRecord>('runs.jsonl').map((r) => [r.run_id, r.stop_reason, r.calls])).toEqual([
      ['agent-1', 'error', 2],
    ]);
  });
});

describe('usage an upstream reports', () => {
  /** One call whose answer reports `usage`; the step it was metered as. */
  async function metered(usage: unknown, limits: Partial<Limits> = {}) {
    const g = await setup((_req, res) => sendJson(res, completionWith(usage)), limits);
    const res = await g.post();
    return { g, res, step: g.steps[0]! };
  }

  it('negative counts are not believed: metered with loopbench own count, both recorded, the cost never below zero', async () => {
    const { g, step } = await metered({ prompt_tokens: -1_000_000, completion_tokens: 5 });
    expect(step.input_tokens).toBeGreaterThan(10);
    expect(step.cost_usd).toBeGreaterThan(0);
    expect(step).toMatchObject({
      usage_source: 'counted',
      reported_usage: { prompt_tokens: null, completion_tokens: 5, cached_tokens: null },
    });
    expect(step.counted_usage!.prompt_tokens).toBe(step.input_tokens);
    expect(step.usage_note).toMatch(/prompt_tokens -1000000 is not a non-negative integer/);
    expect(g.meter.state.costUsd).toBeGreaterThan(0);
  });

  it('a lying upstream cannot get a run past its budget: each call is metered at least at loopbench own count', async () => {
    const probe = counter.prompt([
      { role: 'system', content: 'You are an agent.' },
      { role: 'user', content: 'Collect sources on agent loop costs.' },
    ]);
    // The budget fits 3 calls at their worst case (prompt + 300 output tokens); it is never passed.
    const budget = 3.5 * callCost(PRICE, probe, 300, 0);
    const g = await setup(
      (_req, res) => sendJson(res, completionWith({ prompt_tokens: -1_000_000, completion_tokens: 300 })),
      { max_cost_usd: budget },
    );
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await g.post()).status);
    expect(statuses.filter((s) => s === 200).length).toBe(3);
    expect(g.meter.stop?.reason).toBe('max_cost');
    expect(g.meter.state.costUsd).toBeLessThanOrEqual(budget);
  });

  it('counts given as strings are numbers in the records', async () => {
    const { step } = await metered({ prompt_tokens: '30', completion_tokens: '500' });
    expect(typeof step.input_tokens).toBe('number');
    expect(typeof step.output_tokens).toBe('number');
    expect(typeof step.cum_output_tokens).toBe('number');
    expect(step).toMatchObject({
      usage_source: 'counted',
      reported_usage: { prompt_tokens: null, completion_tokens: null },
    });
    expect(step.usage_note).toMatch(/completion_tokens "500" is not a non-negative integer/);
  });

  it('no usage at all: metered with loopbench own count, reported_usage null', async () => {
    const { step } = await metered(undefined);
    expect(step).toMatchObject({ usage_source: 'counted', reported_usage: null });
    expect(step.input_tokens).toBeGreaterThan(10);
    expect(step.output_tokens).toBeGreaterThan(3);
  });

  it('more output than the request allowed is billed as reported, and the run refuses further calls', async () => {
    const { g, res, step } = await metered({ prompt_tokens: 40, completion_tokens: 5000 });
    expect(res.status).toBe(200);
    expect(step).toMatchObject({
      usage_source: 'provider',
      output_tokens: 5000,
      reported_usage: { completion_tokens: 5000 },
    });
    expect(step.usage_note).toMatch(
      /completion_tokens 5,000 is more than the 300 the request allowed: billed as reported, and the run's further calls are refused/,
    );
    const next = await g.post();
    expect(next.status).toBe(403);
    expect(next.json.error!.code).toBe('loopbench_error');
    // The refused call reached no model: recorded with its error, no usage, no step of its own.
    expect(g.meter.state.steps).toBe(1);
    expect(g.steps[1]).toMatchObject({ step: 1, call: 2, input_tokens: 0, output_tokens: 0, cost_usd: 0 });
    expect(g.steps[1]!.error).toMatch(/^refused by the gateway \(HTTP 403 loopbench_error\): loopbench brake 'error'/);
  });

  it('a prompt far beyond what was sent is over-reported too; usage within reach is taken as sent', async () => {
    const over = await metered({ prompt_tokens: 90_000, completion_tokens: 10 });
    expect(over.step).toMatchObject({ input_tokens: 90_000, usage_source: 'provider' });
    expect(over.g.meter.stop?.reason).toBe('error');
    const honest = await metered({
      prompt_tokens: 31,
      completion_tokens: 11,
      prompt_tokens_details: { cached_tokens: 0 },
    });
    expect(honest.step).toMatchObject({ input_tokens: 31, output_tokens: 11, usage_source: 'provider' });
    expect(honest.step.reported_usage).toBeUndefined();
    expect(honest.g.meter.stop).toBeNull();
  });
});

describe('deadlines', () => {
  it(
    'a stream that trickles a byte at a time ends at the total deadline, not never: 504, billed at its worst case',
    async () => {
      const g = await setup(
        (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          // A byte every 100 ms for as long as the connection lasts: only the total deadline can end it.
          const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write(':\n')), 100);
        },
        {},
        { timeoutMs: 1200, idleMs: 1000 },
      );
      const res = await g.post(JSON.stringify({ ...JSON.parse(BODY), stream: true }));
      expect(res.status).toBe(504);
      expect(res.json.error).toMatchObject({ type: 'upstream_timeout', code: 'loopbench_upstream_deadline' });
      expect(g.steps[0]).toMatchObject({ usage_source: 'worst_case', output_tokens: 300 });
      expect(g.steps[0]!.error).toMatch(/no whole answer within the call's deadline \(--request-timeout 1.2 s\)/);
    },
    patient(20_000),
  );

  it('an upstream that goes silent fails at the idle deadline', async () => {
    const g = await setup(
      (_req, res) => res.writeHead(200, { 'content-type': 'text/event-stream' }) && res.flushHeaders(),
      {},
      { timeoutMs: 10_000, idleMs: 300 },
    );
    const res = await g.post();
    expect(res.json.error).toMatchObject({ code: 'loopbench_upstream_idle' });
    expect(g.steps[0]!.error).toMatch(/sent nothing for 0.3 s/);
  });

  it(
    "a call in flight ends with its run's --timeout: the run stops as timeout, the call billed",
    async () => {
      // The upstream never answers: only the run's timeout can end the call.
      const g = await setup(() => undefined, { timeout_s: 1 });
      const res = await g.post();
      expect(res.status).toBe(403);
      expect(res.json.error!.code).toBe('loopbench_timeout');
      expect(g.meter.stop).toMatchObject({ reason: 'timeout' });
      expect(g.steps[0]).toMatchObject({ usage_source: 'worst_case' });
    },
    patient(20_000),
  );
});

describe('an agent that hangs up', () => {
  it(
    'is billed for the answer the upstream gave all the same, and the budget counts it',
    async () => {
      const probe = counter.prompt([
        { role: 'system', content: 'You are an agent.' },
        { role: 'user', content: 'Collect sources on agent loop costs.' },
      ]);
      const budget = 3.5 * callCost(PRICE, probe, 300, 0);
      const g = await setup(
        (_req, res) =>
          setTimeout(() => sendJson(res, completionWith({ prompt_tokens: probe, completion_tokens: 300 })), 300),
        { max_cost_usd: budget },
      );
      for (let i = 0; i < 3; i++) await g.hangUp();
      await until(() => g.steps.length === 3);
      expect(g.steps.map((s) => [s.output_tokens, s.usage_source])).toEqual(Array(3).fill([300, 'provider']));
      expect(g.steps.every((s) => /hung up/.test(s.error ?? ''))).toBe(true);
      expect(g.meter.state.costUsd).toBeCloseTo(3 * callCost(PRICE, probe, 300, 0), 12);
      // The fourth does not fit the budget any more.
      expect((await g.post()).json.error!.code).toBe('loopbench_max_cost');
    },
    patient(20_000),
  );

  it(
    'with no answer to bill from, at its worst case',
    async () => {
      const g = await setup(() => undefined, {}, { timeoutMs: 800, idleMs: 800 });
      await g.hangUp();
      await until(() => g.steps.length === 1);
      expect(g.steps).toHaveLength(1);
      expect(g.steps[0]).toMatchObject({ usage_source: 'worst_case', output_tokens: 300 });
    },
    patient(20_000),
  );
});

describe('the run-id header', () => {
  it.each([
    ['12 KB long', 'x'.repeat(12_000), /x-loopbench-run: "x{40}"… \(12,000 characters\) is not a run id/],
    ['a path', '../../../tmp/x', /is not a run id/],
    ['given twice', ['run-a', 'run-b'], /sent 2 times: send one run id/],
  ])('is refused when %s', async (_name, id, message) => {
    const stub = await stubUpstream((_req, res) =>
      sendJson(res, completionWith({ prompt_tokens: 20, completion_tokens: 5 })),
    );
    const made: string[] = [];
    const g = await Gateway.start({
      host: '127.0.0.1',
      port: 0,
      counter,
      runForHeader: (runId) => (
        made.push(runId),
        {
          meter: new RunMeter(runId, 'c', gatewaySettings(), () => undefined),
          upstream: { url: stub.url, timeoutMs: 5000 },
        }
      ),
    });
    open.push(stub, g);
    const res = await postRaw(g.url, BODY, { [RUN_HEADER]: id });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'invalid_run_id' });
    expect(res.json.error!.message).toMatch(message);
    expect(made).toEqual([]);
    expect((await postRaw(g.url, BODY, { [RUN_HEADER]: 'agent_1.try-2' })).status).toBe(200);
  });
});
