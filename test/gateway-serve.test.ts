// `bench serve --upstream URL` / `--out DIR`: the gateway on its own, in front of a second `bench
// serve` on 127.0.0.1 as the provider; runs named by header, braked and recorded so `bench report`
// reads them; the provider key never written anywhere.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { gatewayOptions } from '../src/cli/serve.ts';
import type { RunRecord, StepRecord } from '../src/contracts/records.ts';
import { startStandaloneGateway } from '../src/gateway/standalone.ts';
import { callCost } from '../src/meter/pricing.ts';
import { buildReports } from '../src/report/build.ts';
import type { RunningServer } from '../src/serve/server.ts';
import { servedUrl, spawnBench } from './helpers/cli.ts';
import { stubUpstream } from './helpers/stub-upstream.ts';
import { serve } from './serve-helpers.ts';
import { SERVE_FLAGS } from './helpers/serve-flags.ts';
import { patient } from './helpers/patient.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-gateway-serve-'));
const KEY = 'sk-live-PROVIDER-KEY-never-written-77';
let upstream: RunningServer;

/** `bench serve --upstream` as a child with the provider key in its environment, and an SDK client naming run `run` on it. */
async function gatewayCli(dir: string, run: string, flags: string[] = []) {
  const s = spawnBench(['serve', '--upstream', upstream.url, '--out', dir, '--port', '0', ...flags], {
    PATH: process.env.PATH,
    OPENAI_API_KEY: KEY,
  });
  const url = await servedUrl(s);
  const client = new OpenAI({
    apiKey: 'anything',
    baseURL: url,
    maxRetries: 0,
    defaultHeaders: { 'x-loopbench-run': run },
  });
  return { s, url, client };
}
beforeAll(async () => {
  upstream = await serve();
});
afterAll(async () => {
  await upstream.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const read = <T>(file: string): T[] =>
  fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as T);
const flags = (extra: Record<string, string>) => ({
  ...SERVE_FLAGS,
  ...extra,
});
const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
  { role: 'system', content: 'You are an agent.' },
  { role: 'user', content: 'Collect sources.' },
];
const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'web',
      parameters: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] },
    },
  },
];

describe('bench serve --upstream: the gateway in front of a provider', () => {
  it(
    'brakes and records each run named by x-loopbench-run; bench report reads the directory',
    async () => {
      const dir = path.join(tmp, 'runs');
      const o = gatewayOptions(flags({ upstream: upstream.url, out: dir, steps: '3', maxRepeat: 'off' }), {
        OPENAI_API_KEY: KEY,
      })!;
      const gateway = await startStandaloneGateway(o);
      const client = (run: string) =>
        new OpenAI({
          apiKey: 'not-the-key',
          baseURL: gateway.url,
          maxRetries: 2,
          defaultHeaders: { 'x-loopbench-run': run },
        });
      const a = client('agent-a');
      const usages: number[] = [];
      for (let i = 0; i < 3; i++) {
        if (i === 1) {
          const stream = await a.chat.completions.create({
            model: 'seed-calibrated',
            messages,
            tools,
            stream: true,
            stream_options: { include_usage: true },
          });
          for await (const chunk of stream) if (chunk.usage) usages.push(chunk.usage.prompt_tokens);
        } else
          usages.push(
            (await a.chat.completions.create({ model: 'seed-calibrated', messages, tools })).usage!.prompt_tokens,
          );
      }
      const refused = await a.chat.completions
        .create({ model: 'seed-calibrated', messages, tools })
        .catch((e: { status: number; code: string }) => e);
      expect(refused).toMatchObject({ status: 403, code: 'loopbench_max_steps' });
      await client('agent-b').chat.completions.create({ model: 'seed-calibrated', messages, tools });
      await gateway.close();

      const runs = read<RunRecord>(path.join(dir, 'runs.jsonl'));
      // agent-a's refused call is one of its calls, recorded with its error; it took no step.
      expect(runs.map((r) => [r.run_id, r.stop_reason, r.steps, r.calls])).toEqual([
        ['agent-a', 'max_steps', 3, 4],
        ['agent-b', 'done', 1, 1],
      ]);
      const all = read<StepRecord>(path.join(dir, 'steps.jsonl'));
      const steps = all.filter((s) => s.error === null);
      expect(all.filter((s) => s.error !== null).map((s) => [s.run_id, s.step, s.input_tokens])).toEqual([
        ['agent-a', 3, 0],
      ]);
      expect(steps.filter((s) => s.run_id === 'agent-a').map((s) => s.input_tokens)).toEqual(usages);
      expect(steps.every((s) => s.action === 'web')).toBe(true);
      const built = await buildReports(dir);
      expect(built.summary.length).toBeGreaterThan(0);
      expect(fs.readFileSync(path.join(dir, 'summary.md'), 'utf8')).toMatch(/external/);
    },
    patient(30_000),
  );

  it(
    'from the command line: the provider key reaches the provider only',
    async () => {
      const dir = path.join(tmp, 'cli');
      const { s, url, client } = await gatewayCli(dir, 'cli-run', ['--steps', '5']);
      await client.chat.completions.create({ model: 'seed-calibrated', messages, tools });
      const nameless = await new OpenAI({ apiKey: 'anything', baseURL: url, maxRetries: 0 }).chat.completions
        .create({ model: 'seed-calibrated', messages })
        .catch((e: { status: number }) => e);
      expect(nameless).toMatchObject({ status: 401 });
      s.child.kill('SIGINT');
      const done = await s.done;
      // As plain bench serve, and a sweep, exit on Ctrl-C.
      expect(done.code).toBe(130);
      expect(read<RunRecord>(path.join(dir, 'runs.jsonl')).map((r) => r.run_id)).toEqual(['cli-run']);
      const files = fs.readdirSync(dir).map((f) => fs.readFileSync(path.join(dir, f), 'utf8'));
      expect(files.join('\n') + done.stdout + done.stderr).not.toContain(KEY);
    },
    patient(30_000),
  );
});

describe('stopping the gateway', () => {
  it(
    'SIGTERM: runs.jsonl written, exit 143 as plain bench serve',
    async () => {
      const dir = path.join(tmp, 'sigterm');
      const { s, client } = await gatewayCli(dir, 'term-run');
      await client.chat.completions.create({ model: 'seed-calibrated', messages, tools });
      s.child.kill('SIGTERM');
      expect((await s.done).code).toBe(143);
      expect(read<RunRecord>(path.join(dir, 'runs.jsonl')).map((r) => r.run_id)).toEqual(['term-run']);
    },
    patient(30_000),
  );
});

describe('virtual keys from the gateway on its own', () => {
  it('POST /v1/loopbench/runs opens a run and returns its key, which any SDK sends as its API key', async () => {
    const token = 'tok-0123456789abcdef';
    const dir = path.join(tmp, 'minted');
    const gateway = await startStandaloneGateway(
      gatewayOptions(flags({ out: dir, authToken: token, steps: '2' }), {})!,
    );
    const mint = (bearer: string, runId?: string) =>
      fetch(`${gateway.url}/loopbench/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify(runId ? { run_id: runId } : {}),
      });
    try {
      expect((await mint('wrong-token-000000', 'nope')).status).toBe(401);
      const made = await mint(token, 'my-agent-1');
      expect(made.status).toBe(201);
      const { run_id, api_key } = (await made.json()) as { run_id: string; api_key: string };
      expect(run_id).toBe('my-agent-1');
      expect(api_key).toMatch(/^lb-/);
      expect((await mint(token, 'my-agent-1')).status).toBe(409);
      const client = new OpenAI({ apiKey: api_key, baseURL: gateway.url, maxRetries: 0 });
      await client.chat.completions.create({ model: 'seed-calibrated', messages, tools });
      await client.chat.completions.create({ model: 'seed-calibrated', messages, tools });
      await expect(client.chat.completions.create({ model: 'seed-calibrated', messages, tools })).rejects.toMatchObject(
        { status: 403, code: 'loopbench_max_steps' },
      );
    } finally {
      await gateway.close();
    }
    expect(
      read<RunRecord>(path.join(dir, 'runs.jsonl')).map((r) => [r.run_id, r.stop_reason, r.steps, r.calls]),
    ).toEqual([['my-agent-1', 'max_steps', 2, 3]]);
  });
});

describe('bench serve --upstream and --anthropic-upstream: one gateway in front of both providers', () => {
  it(
    'forwards Responses and Messages calls, each to its provider; a run is priced as the model its first call names when the table has it, else as --price-model',
    async () => {
      // A provider that answers any model name.
      const provider = await serve({ profile: 'seed-calibrated' });
      const runsOf = async (extra: Record<string, string>) => {
        const dir = path.join(tmp, `both-${Object.keys(extra).length}`);
        const o = gatewayOptions(
          flags({ upstream: provider.url, anthropicUpstream: provider.url.replace(/\/v1$/, ''), out: dir, ...extra }),
          { OPENAI_API_KEY: KEY, ANTHROPIC_API_KEY: `${KEY}-anthropic` },
        )!;
        const gateway = await startStandaloneGateway(o);
        const named = (run: string) => ({ 'x-loopbench-run': run });
        const openai = (run: string) =>
          new OpenAI({ apiKey: 'unused', baseURL: gateway.url, maxRetries: 0, defaultHeaders: named(run) });
        await openai('resp-gpt-4o').responses.create({ model: 'gpt-4o', input: 'Collect sources.' });
        await openai('chat-unpriced').chat.completions.create({ model: 'seed-calibrated', messages });
        const anthropic = new Anthropic({
          apiKey: 'unused',
          baseURL: gateway.url.replace(/\/v1$/, ''),
          maxRetries: 0,
          defaultHeaders: named('msg-claude'),
        });
        await anthropic.messages.create({
          model: 'claude-sonnet-4-5',
          max_tokens: 200,
          messages: [{ role: 'user', content: 'Collect sources.' }],
        });
        await gateway.close();
        return {
          runs: read<RunRecord>(path.join(dir, 'runs.jsonl')),
          steps: read<StepRecord>(path.join(dir, 'steps.jsonl')),
        };
      };
      try {
        const byModel = await runsOf({});
        expect(byModel.runs.map((r) => [r.run_id, r.settings.price.model, r.settings.model])).toEqual([
          ['resp-gpt-4o', 'gpt-4o', 'openai+anthropic:upstream'],
          ['chat-unpriced', 'gpt-4o-mini', 'openai+anthropic:upstream'],
          ['msg-claude', 'claude-sonnet-4-5', 'openai+anthropic:upstream'],
        ]);
        for (const step of byModel.steps) {
          const price = byModel.runs.find((r) => r.run_id === step.run_id)!.settings.price;
          expect(step.cost_usd).toBeCloseTo(
            callCost(price, step.input_tokens, step.output_tokens, step.cached_tokens),
            15,
          );
        }
        const fixed = await runsOf({ priceModel: 'gpt-4.1' });
        expect(fixed.runs.map((r) => r.settings.price.model)).toEqual(['gpt-4.1', 'gpt-4.1', 'gpt-4.1']);
        const files = fs
          .readdirSync(tmp, { recursive: true, withFileTypes: true })
          .filter((f) => f.isFile() && f.parentPath.includes('both-'));
        expect(
          files
            .filter((f) => fs.readFileSync(path.join(f.parentPath, f.name), 'utf8').includes(KEY))
            .map((f) => f.name),
        ).toEqual([]);
      } finally {
        await provider.close();
      }
    },
    patient(30_000),
  );
});

describe("bench serve --upstream: a request the gateway refuses is one of its run's calls", () => {
  it("a provider model the pricing table lacks: its first call refused in the protocol's shape naming --price-model and --pricing, recorded, the run ended as that error, said on stderr", async () => {
    const provider = await stubUpstream(() => undefined);
    const dir = path.join(tmp, 'unpriced');
    const said: string[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((line: string) => void said.push(line));
    try {
      const gateway = await startStandaloneGateway(
        gatewayOptions(
          flags({ upstream: provider.url, anthropicUpstream: provider.url.replace(/\/v1$/, ''), out: dir }),
          { OPENAI_API_KEY: KEY, ANTHROPIC_API_KEY: KEY },
        )!,
      );
      const named = (run: string) => ({ 'x-loopbench-run': run });
      const codex = new OpenAI({
        apiKey: 'unused',
        baseURL: gateway.url,
        maxRetries: 2,
        defaultHeaders: named('codex'),
      });
      const claude = new Anthropic({
        apiKey: 'unused',
        baseURL: gateway.url.replace(/\/v1$/, ''),
        maxRetries: 2,
        defaultHeaders: named('claude'),
      });
      const remedy =
        /no price for model '(gpt-5\.1-codex|claude-opus-4-8)': add it to .*pricing\.yaml, or pass --pricing FILE .*LiteLLM's model_prices_and_context_window\.json.*--price-model NAME/;
      const e1 = await codex.responses.create({ model: 'gpt-5.1-codex', input: 'hi' }).catch((e: unknown) => e);
      expect(e1).toMatchObject({ status: 400, code: 'loopbench_unpriced_model', type: 'invalid_request_error' });
      expect((e1 as Error).message).toMatch(remedy);
      const e2 = await claude.messages
        .create({ model: 'claude-opus-4-8', max_tokens: 1024, messages: [{ role: 'user', content: 'hi' }] })
        .catch((e: unknown) => e);
      expect(e2).toMatchObject({ status: 400, error: { type: 'error', error: { type: 'invalid_request_error' } } });
      expect((e2 as Error).message).toMatch(remedy);
      // The run is over: a later call is refused with its stop, and recorded too.
      const e3 = await codex.responses.create({ model: 'gpt-5.1-codex', input: 'hi' }).catch((e: unknown) => e);
      expect(e3).toMatchObject({ status: 403, code: 'loopbench_error' });
      await gateway.close();
      expect(provider.bodies).toHaveLength(0);
      expect(said.filter((l) => remedy.test(l)).map((l) => l.slice(0, 26))).toEqual([
        "bench serve: run 'codex' e",
        "bench serve: run 'claude' ",
      ]);
      const runs = read<RunRecord>(path.join(dir, 'runs.jsonl'));
      expect(runs.map((r) => [r.run_id, r.stop_reason, r.calls, r.steps, r.cost_usd])).toEqual([
        ['codex', 'error', 2, 0, 0],
        ['claude', 'error', 1, 0, 0],
      ]);
      for (const r of runs) expect(r.stop_detail).toMatch(remedy);
      const steps = read<StepRecord>(path.join(dir, 'steps.jsonl'));
      expect(steps.map((st) => [st.run_id, st.step, st.input_tokens, st.error!.slice(0, 58)])).toEqual([
        ['codex', 0, 0, 'refused by the gateway (HTTP 400 loopbench_unpriced_model)'],
        ['claude', 0, 0, 'refused by the gateway (HTTP 400 loopbench_unpriced_model)'],
        ['codex', 0, 0, 'refused by the gateway (HTTP 403 loopbench_error): loopben'],
      ]);
    } finally {
      spy.mockRestore();
      await provider.close();
    }
  });

  it('a bad first request: recorded with its error, and the run that went quiet on it ends as error, not done after 0 calls', async () => {
    const dir = path.join(tmp, 'bad-first');
    const gateway = await startStandaloneGateway(
      gatewayOptions(flags({ upstream: upstream.url, out: dir, priceModel: 'gpt-4o-mini' }), { OPENAI_API_KEY: KEY })!,
    );
    const run = { 'x-loopbench-run': 'bad', 'content-type': 'application/json' };
    const res = await fetch(`${gateway.url}/chat/completions`, {
      method: 'POST',
      headers: run,
      body: JSON.stringify({ model: 'seed-calibrated', messages: [{ role: 'robot', content: 'hi' }] }),
    });
    expect(res.status).toBe(400);
    await gateway.close();
    const [step] = read<StepRecord>(path.join(dir, 'steps.jsonl'));
    expect(step).toMatchObject({ run_id: 'bad', step: 0, call: 1, input_tokens: 0, cost_usd: 0 });
    expect(step!.error).toMatch(
      /^refused by the gateway \(HTTP 400 invalid_value\): Invalid value for 'messages\[0\]\.role'/,
    );
    const [record] = read<RunRecord>(path.join(dir, 'runs.jsonl'));
    expect(record).toMatchObject({ run_id: 'bad', stop_reason: 'error', calls: 1, steps: 0 });
    expect(record!.stop_detail).toMatch(/^its last call failed: refused by the gateway \(HTTP 400/);
  });
});

describe('gateway flags', () => {
  it.each([
    [
      'a host beyond loopback without --auth-token',
      { upstream: 'http://127.0.0.1:9/v1', host: '0.0.0.0' },
      { OPENAI_API_KEY: KEY },
      /--auth-token/,
    ],
    [
      '--upstream without a key in the environment',
      { upstream: 'http://127.0.0.1:9/v1' },
      {},
      /OPENAI_API_KEY is not set/,
    ],
    [
      '--upstream that is not a URL',
      { upstream: 'not a url' },
      { OPENAI_API_KEY: KEY },
      /--upstream: 'not a url' is not a URL/,
    ],
    [
      '--anthropic-upstream without its key in the environment',
      { anthropicUpstream: 'https://api.anthropic.com' },
      { OPENAI_API_KEY: KEY },
      /--anthropic-upstream: ANTHROPIC_API_KEY is not set/,
    ],
    ['a list of steps', { out: 'x', steps: '3,5' }, {}, /--steps: the gateway takes one value/],
    ['a brake flag without gateway mode', { steps: '3' }, {}, /--steps: a gateway flag/],
    ['a short --auth-token', { out: 'x', authToken: 'short' }, {}, /at least 16/],
    ['--run-idle of 0', { out: 'x', runIdle: '0' }, {}, /--run-idle: 0 is below the minimum 0\.001/],
    ['--run-idle that is not a number', { out: 'x', runIdle: 'soon' }, {}, /--run-idle: 'soon' is not a number/],
  ])('%s', (_name, extra, env, message) => {
    expect(() => gatewayOptions(flags(extra as Record<string, string>), env as NodeJS.ProcessEnv)).toThrow(message);
  });

  it('with --auth-token, a header-named run must present it', async () => {
    const token = 'tok-0123456789abcdef';
    const o = gatewayOptions(flags({ out: path.join(tmp, 'auth'), authToken: token }), {})!;
    const gateway = await startStandaloneGateway(o);
    try {
      const make = (apiKey: string) =>
        new OpenAI({ apiKey, baseURL: gateway.url, maxRetries: 0, defaultHeaders: { 'x-loopbench-run': 'r1' } });
      await expect(
        make('wrong-token-000000').chat.completions.create({ model: 'seed-calibrated', messages }),
      ).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
      const ok = await make(token).chat.completions.create({ model: 'seed-calibrated', messages });
      expect(ok.choices[0]!.message.tool_calls ?? []).toHaveLength(0);
    } finally {
      await gateway.close();
    }
  });
});

describe('bench serve --out --prompt-cache on: the sim behind the gateway caches as the runs are priced', () => {
  it("priced as claude-sonnet-4-5 (--price-model), Anthropic's rule: cache writes recorded and billed; as the default gpt-4o-mini, OpenAI's", async () => {
    const stepsOf = async (name: string, extra: Record<string, string>) => {
      const dir = path.join(tmp, name);
      const gateway = await startStandaloneGateway(
        gatewayOptions(flags({ out: dir, promptCache: 'on', maxRepeat: 'off', ...extra }), {})!,
      );
      try {
        const client = new OpenAI({
          apiKey: 'unused',
          baseURL: gateway.url,
          maxRetries: 0,
          defaultHeaders: { 'x-loopbench-run': name },
        });
        const first: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
          { role: 'system', content: `You are an agent. ${'Cite every source you use. '.repeat(300)}` },
          { role: 'user', content: 'Collect sources.' },
        ];
        const a = await client.chat.completions.create({ model: 'seed-calibrated', messages: first, tools, seed: 1 });
        const second = [...first, a.choices[0]!.message, { role: 'user' as const, content: 'And one more.' }];
        await client.chat.completions.create({ model: 'seed-calibrated', messages: second, tools, seed: 1 });
      } finally {
        await gateway.close();
      }
      return read<StepRecord>(path.join(dir, 'steps.jsonl'));
    };
    const [w1, w2] = await stepsOf('anthropic-cache', { priceModel: 'claude-sonnet-4-5' });
    expect(w1!.settings.price.model).toBe('claude-sonnet-4-5');
    expect(w1!.cache_write_tokens).toBe(w1!.input_tokens);
    expect(w2!.cached_tokens).toBeGreaterThan(1024);
    expect(w2!.cached_tokens + w2!.cache_write_tokens!).toBe(w2!.input_tokens);
    const sonnet = w1!.settings.price;
    expect(w1!.cost_usd).toBeCloseTo(
      callCost(sonnet, w1!.input_tokens, w1!.output_tokens, 0, { cacheWrite: w1!.input_tokens }),
      12,
    );

    const [r1, r2] = await stepsOf('openai-cache', {});
    expect(r1!.settings.price.model).toBe('gpt-4o-mini');
    expect(r1!.cache_write_tokens).toBeUndefined();
    expect(r2!.cached_tokens % 128).toBe(0);
    expect(r2!.cached_tokens).toBeGreaterThan(1024);
    expect(r2!.cache_write_tokens).toBeUndefined();
  });
});
