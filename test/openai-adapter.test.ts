// The openai adapter against a purpose-made local server: usage read only from the response,
// and a provider that echoes the key in its error message does not get it into a record.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelError } from '../src/contracts/chat.ts';
import { OpenAIModel } from '../src/models/openai.ts';
import { redact } from '../src/models/redact.ts';
import { FAKE_KEY } from './serve-helpers.ts';

let answer: { status: number; body: unknown } = { status: 200, body: {} };
const seen: Array<{ auth: string | undefined; body: Record<string, unknown> }> = [];
let server: http.Server;
let url: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (d: Buffer) => (text += d.toString()));
    req.on('end', () => {
      seen.push({ auth: req.headers.authorization, body: JSON.parse(text) });
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const model = () =>
  new OpenAIModel('openai:gpt-4o-mini', 'gpt-4o-mini', {
    apiKey: FAKE_KEY,
    baseURL: url,
    timeoutMs: 5000,
    maxRetries: 0,
  });
const ctx = { runId: 'r', scenario: 's', step: 1, round: 0, role: 'act' as const };
const request = {
  model: 'openai:gpt-4o-mini',
  messages: [{ role: 'user' as const, content: 'hi' }],
  max_tokens: 64,
  seed: 3,
};
const choice = {
  index: 0,
  message: { role: 'assistant', content: 'hello', refusal: null, annotations: [] },
  finish_reason: 'stop',
  logprobs: null,
};

describe('OpenAIModel', () => {
  it('sends the bare model name, the key as a bearer header, and reads usage including cached tokens', async () => {
    answer = {
      status: 200,
      body: {
        id: 'x',
        object: 'chat.completion',
        created: 0,
        model: 'gpt-4o-mini',
        choices: [choice],
        usage: {
          prompt_tokens: 11,
          completion_tokens: 2,
          total_tokens: 13,
          prompt_tokens_details: { cached_tokens: 4 },
        },
      },
    };
    const r = await model().complete(request, ctx);
    expect(seen.at(-1)!.body).toMatchObject({ model: 'gpt-4o-mini', max_tokens: 64, seed: 3 });
    expect(seen.at(-1)!.auth).toBe(`Bearer ${FAKE_KEY}`);
    expect(r.usage).toEqual({ prompt_tokens: 11, completion_tokens: 2, cached_tokens: 4 });
    // Only the standard fields are kept, so the next request sends what an OpenAI agent would.
    expect(r.message).toEqual({ role: 'assistant', content: 'hello' });
    expect(r.retries).toBe(0);
  });

  it("reads a reasoning model's reasoning tokens apart (a part of completion_tokens)", async () => {
    answer = {
      status: 200,
      body: {
        id: 'x',
        object: 'chat.completion',
        created: 0,
        model: 'o4-mini',
        choices: [choice],
        usage: {
          prompt_tokens: 11,
          completion_tokens: 40,
          total_tokens: 51,
          prompt_tokens_details: { cached_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: 32 },
        },
      },
    };
    expect((await model().complete(request, ctx)).usage).toEqual({
      prompt_tokens: 11,
      completion_tokens: 40,
      cached_tokens: 0,
      reasoning_tokens: 32,
    });
  });

  it('reads answers as bench serve and the gateway do: a legacy function_call finish is a tool call, a cache write is kept', async () => {
    const call = { id: 'c1', type: 'function', function: { name: 'run_python', arguments: '{"code":"1"}' } };
    const usage = {
      prompt_tokens: 30,
      completion_tokens: 5,
      total_tokens: 35,
      prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 20 },
    };
    answer = {
      status: 200,
      body: {
        id: 'x',
        object: 'chat.completion',
        created: 0,
        model: 'gpt-4o-mini',
        choices: [
          {
            ...choice,
            message: { role: 'assistant', content: null, tool_calls: [call] },
            finish_reason: 'function_call',
          },
        ],
        usage,
      },
    };
    const r = await model().complete(request, ctx);
    expect(r.finishReason).toBe('tool_calls');
    expect(r.message).toEqual({ role: 'assistant', content: null, tool_calls: [call] });
    expect(r.usage).toEqual({ prompt_tokens: 30, completion_tokens: 5, cached_tokens: 0, cache_write_tokens: 20 });
  });

  it('usage without a completion count is no usage: an error, never priced as 0 output tokens', async () => {
    answer = {
      status: 200,
      body: {
        id: 'x',
        object: 'chat.completion',
        created: 0,
        model: 'gpt-4o-mini',
        choices: [choice],
        usage: { prompt_tokens: 11 },
      },
    };
    await expect(model().complete(request, ctx)).rejects.toThrow(/response has no usage/);
  });

  it('a response without usage is a ModelError that says so', async () => {
    answer = {
      status: 200,
      body: { id: 'x', object: 'chat.completion', created: 0, model: 'gpt-4o-mini', choices: [choice] },
    };
    await expect(model().complete(request, ctx)).rejects.toThrow(/response has no usage/);
    await expect(model().complete(request, ctx)).rejects.toBeInstanceOf(ModelError);
  });

  it('a provider error that echoes the key does not carry it into the error message', async () => {
    answer = {
      status: 401,
      body: {
        error: {
          message: `Incorrect API key provided: ${FAKE_KEY}. You can find your API key at ...`,
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      },
    };
    const e = await model()
      .complete(request, ctx)
      .catch((x: unknown) => x as ModelError);
    expect(e).toBeInstanceOf(ModelError);
    expect(e.message).toMatch(/^HTTP 401 from gpt-4o-mini: .*Incorrect API key provided: \*\*\*/);
    expect(e.message).not.toContain('SECRET123');
  });
});

describe('redact', () => {
  it('masks given secrets, key-shaped strings and bearer tokens', () => {
    expect(redact('key sk-test-SECRET123 here', [])).toBe('key *** here');
    expect(redact('Authorization: Bearer abc.def', [])).toBe('Authorization: Bearer ***');
    expect(redact('token hunter2hunter2', ['hunter2hunter2'])).toBe('token ***');
    expect(redact('--base-url=https://user:pa55@proxy.local/v1')).toBe('--base-url=https://***@proxy.local/v1');
    expect(redact('https://proxy.local/v1')).toBe('https://proxy.local/v1');
    expect(redact('a task-list of 12 steps', [])).toBe('a task-list of 12 steps');
  });
});
