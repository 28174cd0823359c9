// `bench serve` as clients meet it: the official openai SDK and raw HTTP (as curl sends it).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveOptions } from '../src/cli/serve.ts';
import { startServe, type RunningServer } from '../src/serve/server.ts';
import { FAKE_KEY, serve } from './serve-helpers.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-serve-test-'));
const logFile = path.join(tmp, 'usage.jsonl');
let server: RunningServer;
let client: OpenAI;

beforeAll(async () => {
  server = await serve({ logFile });
  client = new OpenAI({ apiKey: FAKE_KEY, baseURL: server.url, maxRetries: 0 });
});
afterAll(async () => {
  await server.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'search',
      description: 'Search.',
      parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    },
  },
];
const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
  { role: 'system', content: 'You are a research agent.' },
  { role: 'user', content: 'Collect sources.' },
];

function post(body: unknown, route = '/chat/completions', method = 'POST') {
  return fetch(`${server.url}${route}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('bench serve answers the official openai SDK', () => {
  it('returns a tool call with usage, deterministic in the seed', async () => {
    const a = await client.chat.completions.create({ model: 'seed-calibrated', messages, tools, seed: 7 });
    const b = await client.chat.completions.create({ model: 'seed-calibrated', messages, tools, seed: 7 });
    const c = await client.chat.completions.create({ model: 'seed-calibrated', messages, tools, seed: 8 });
    expect(a.choices[0]!.finish_reason).toBe('tool_calls');
    const call = a.choices[0]!.message.tool_calls![0]!;
    expect(call.type === 'function' && call.function.name).toBe('search');
    expect(JSON.parse(call.type === 'function' ? call.function.arguments : '')).toEqual({
      query: 'agent loop token cost, source 1',
    });
    expect(a.usage!.prompt_tokens).toBeGreaterThan(40);
    expect(a.usage!.total_tokens).toBe(a.usage!.prompt_tokens + a.usage!.completion_tokens);
    expect(b.choices[0]!.message).toEqual(a.choices[0]!.message);
    expect(c.choices[0]!.message.content).not.toEqual(a.choices[0]!.message.content);
  });

  it('streams SSE chunks that add up to the same answer, with a final usage chunk', async () => {
    const whole = await client.chat.completions.create({ model: 'seed-calibrated', messages, tools, seed: 3 });
    const stream = await client.chat.completions.create({
      model: 'seed-calibrated',
      messages,
      tools,
      seed: 3,
      stream: true,
      stream_options: { include_usage: true },
    });
    let content = '';
    let args = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | null | undefined;
    let chunks = 0;
    for await (const chunk of stream) {
      chunks++;
      const d = chunk.choices[0]?.delta;
      content += d?.content ?? '';
      args += d?.tool_calls?.[0]?.function?.arguments ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    const m = whole.choices[0]!.message;
    expect(chunks).toBeGreaterThan(3);
    expect(content).toBe(m.content);
    expect(args).toBe(m.tool_calls![0]!.type === 'function' ? m.tool_calls![0]!.function.arguments : '');
    expect(finish).toBe('tool_calls');
    expect(usage).toEqual(whole.usage);
  });

  it('sends no usage chunk unless stream_options.include_usage is set', async () => {
    const stream = await client.chat.completions.create({ model: 'seed-calibrated', messages, seed: 3, stream: true });
    for await (const chunk of stream) expect(chunk.usage ?? null).toBeNull();
  });

  it("honours tool_choice 'none': text only, billed for what it returns", async () => {
    const auto = await client.chat.completions.create({ model: 'seed-calibrated', messages, tools, seed: 5 });
    const none = await client.chat.completions.create({
      model: 'seed-calibrated',
      messages,
      tools,
      seed: 5,
      tool_choice: 'none',
    });
    expect(none.choices[0]!.message.tool_calls ?? []).toHaveLength(0);
    expect(none.choices[0]!.finish_reason).toBe('stop');
    expect(none.choices[0]!.message.content).toBe(auto.choices[0]!.message.content);
    expect(none.usage!.completion_tokens).toBeLessThan(auto.usage!.completion_tokens);
  });

  it('lists the simulated profiles as models', async () => {
    const ids = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids).toContain('seed-calibrated');
    expect(ids).toContain('tiny-agent');
    expect((await client.models.retrieve('tiny-agent')).id).toBe('tiny-agent');
    await expect(client.models.retrieve('gpt-9')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('logs one usage line per request', () => {
    const lines = fs
      .readFileSync(logFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const ok = lines.filter((l) => l.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(6);
    for (const l of ok)
      expect(l).toMatchObject({ model: 'seed-calibrated', profile: 'seed-calibrated', fault: null, error: null });
    expect(ok[0].prompt_tokens).toBeGreaterThan(0);
    expect(ok[0].tool_calls).toEqual(['search']);
    expect(JSON.stringify(lines)).not.toContain(FAKE_KEY);
  });
});

describe('malformed requests get 4xx in OpenAI error format', () => {
  const cases: Array<[string, unknown, number, RegExp, string?, string?]> = [
    ['bad JSON', '{bad', 400, /not valid JSON/],
    ['empty body', '', 400, /empty/],
    ['no messages', { model: 'seed-calibrated', messages: [] }, 400, /messages/],
    ['no model', { messages: [{ role: 'user', content: 'hi' }] }, 400, /model/],
    ['unknown role', { model: 'seed-calibrated', messages: [{ role: 'robot', content: 'hi' }] }, 400, /messages/],
    [
      'tool_choice without tools',
      { model: 'seed-calibrated', messages: [{ role: 'user', content: 'hi' }], tool_choice: 'required' },
      400,
      /tool_choice/,
    ],
    [
      'n above 1 (the sim writes one choice)',
      { model: 'seed-calibrated', messages: [{ role: 'user', content: 'hi' }], n: 2 },
      400,
      /one choice per request \(n=1\); got n=2/,
    ],
    [
      'more than 4 stop sequences',
      { model: 'seed-calibrated', messages: [{ role: 'user', content: 'hi' }], stop: ['a', 'b', 'c', 'd', 'e'] },
      400,
      /stop/,
    ],
    [
      'unknown model',
      { model: 'gpt-9', messages: [{ role: 'user', content: 'hi' }] },
      404,
      /'gpt-9' does not exist: it names no simulated profile \(known: .*\) and no shipped scenario/,
    ],
    [
      'a file path as model',
      { model: '../data/profiles/tiny-agent.yaml', messages: [{ role: 'user', content: 'hi' }] },
      404,
      /does not exist/,
    ],
    ['unknown route', {}, 404, /Unknown route/, '/completions'],
    ['wrong method', undefined, 405, /use POST/, '/chat/completions', 'GET'],
  ];
  it.each(cases)('%s', async (_name, body, status, message, route, method) => {
    const res = await fetch(`${server.url}${route ?? '/chat/completions'}`, {
      method: method ?? 'POST',
      ...(method === 'GET' ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    expect(res.status).toBe(status);
    const json = (await res.json()) as { error: { message: string; type: string } };
    expect(json.error.message).toMatch(message);
    expect(json.error.type).toBe('invalid_request_error');
  });

  it("a shipped scenario's id names its profile (the model a user copies from bench scenarios)", async () => {
    const r = await client.chat.completions.create({
      model: 'tiny-agent-sum-of-squares',
      messages: [{ role: 'user', content: 'Compute the sum of squares of 1..100.' }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'run_python',
            parameters: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
          },
        },
      ],
      seed: 1,
    });
    expect(r.model).toBe('tiny-agent-sum-of-squares');
    const line = fs
      .readFileSync(logFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((l: { model: string }) => l.model === 'tiny-agent-sum-of-squares')
      .at(-1);
    expect(line).toMatchObject({ status: 200, profile: 'tiny-agent' });
  });

  it('the SDK surfaces them as typed errors', async () => {
    await expect(client.chat.completions.create({ model: 'gpt-9', messages })).rejects.toBeInstanceOf(
      OpenAI.NotFoundError,
    );
  });

  it('accepts content-part arrays and developer messages, as frameworks send them', async () => {
    const res = await post({
      model: 'tiny-agent',
      messages: [
        { role: 'developer', content: [{ type: 'text', text: 'Be brief.' }] },
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      ],
      user: 'x',
      parallel_tool_calls: false,
    });
    expect(res.status).toBe(200);
  });
});

describe('--profile answers every model name', () => {
  it('serves gpt-4o-mini as the named profile', async () => {
    const s = await serve({ profile: 'seed-calibrated' });
    try {
      const c = new OpenAI({ apiKey: FAKE_KEY, baseURL: s.url, maxRetries: 0 });
      const a = await c.chat.completions.create({ model: 'gpt-4o-mini', messages, tools, seed: 7 });
      const b = await client.chat.completions.create({ model: 'seed-calibrated', messages, tools, seed: 7 });
      expect(a.model).toBe('gpt-4o-mini');
      expect(a.choices[0]!.message).toEqual(b.choices[0]!.message);
      expect(a.usage).toEqual(b.usage);
    } finally {
      await s.close();
    }
  });
});

describe('bench serve --prompt-cache on caches as the provider of the model a request names', () => {
  it("Anthropic's rule for a model the pricing table bills cache writes for, OpenAI's for the others", async () => {
    const flags = { port: '0', host: '127.0.0.1', latency: '0', errorRate: '0', faults: '429', retryAfter: '1' };
    const s = await startServe(
      serveOptions({ ...flags, promptCache: 'on', profile: 'seed-calibrated', log: path.join(tmp, 'cache.jsonl') }),
    );
    try {
      const c = new OpenAI({ apiKey: FAKE_KEY, baseURL: s.url, maxRetries: 0 });
      /** Two calls of one conversation, the second sending the first's messages and one more. */
      const twoCalls = async (model: string, topic: string) => {
        const first: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
          { role: 'system', content: `You research ${topic}. ${'Cite every source you use. '.repeat(300)}` },
          { role: 'user', content: 'Collect sources.' },
        ];
        const a = await c.chat.completions.create({ model, messages: first, tools, seed: 1 });
        const second = [...first, a.choices[0]!.message, { role: 'user' as const, content: 'And one more.' }];
        const b = await c.chat.completions.create({ model, messages: second, tools, seed: 1 });
        return [a.usage!, b.usage!] as const;
      };
      type Details = { cached_tokens: number; cache_write_tokens?: number };
      const parts = (u: OpenAI.CompletionUsage) => u.prompt_tokens_details as Details;

      // claude-sonnet-4-5 (a dated snapshot, as Claude Code names it): the whole prompt written, then the prefix read whole.
      const [a, b] = await twoCalls('claude-sonnet-4-5-20250929', 'agent costs');
      expect(a.prompt_tokens).toBeGreaterThan(1024);
      expect(parts(a)).toEqual({ cached_tokens: 0, cache_write_tokens: a.prompt_tokens });
      expect(parts(b).cached_tokens).toBeGreaterThan(1024);
      expect(parts(b).cached_tokens % 128).not.toBe(0);
      expect(parts(b).cached_tokens + parts(b).cache_write_tokens!).toBe(b.prompt_tokens);

      // gpt-4o: reads only, in 128-token steps from 1,024, no writes.
      const [x, y] = await twoCalls('gpt-4o', 'tool budgets');
      expect(parts(x)).toEqual({ cached_tokens: 0 });
      expect(parts(y).cached_tokens).toBeGreaterThan(1024);
      expect(parts(y).cached_tokens % 128).toBe(0);
      expect(parts(y).cache_write_tokens).toBeUndefined();
    } finally {
      await s.close();
    }
  });
});
