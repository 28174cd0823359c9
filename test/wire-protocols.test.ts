// The Responses API and Anthropic Messages on `bench serve`, with the official SDKs as clients (the
// `openai` SDK's responses.create / responses.stream, the Anthropic TS SDK's messages.create /
// messages.stream): what they parse equals what the server metered, streamed or not, and the sim
// bills a conversation the same whichever protocol carries it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { Ajv } from 'ajv';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UsageLine, RunningServer } from '../src/serve/server.ts';
import type { Answer } from '../src/wire/adapter.ts';
import { chatWire } from '../src/wire/chat/adapter.ts';
import { messagesWire } from '../src/wire/messages/adapter.ts';
import { responsesWire } from '../src/wire/responses/adapter.ts';
import { parseSse, readEvents } from '../src/wire/sse.ts';
import { ResponseStore } from '../src/wire/store.ts';
import { usageFrom } from '../src/wire/usage.ts';
import { serve } from './serve-helpers.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-wire-'));
const logFile = path.join(tmp, 'usage.jsonl');
let server: RunningServer;
let openai: OpenAI;
let anthropic: Anthropic;
beforeAll(async () => {
  server = await serve({ logFile });
  openai = new OpenAI({ baseURL: server.url, apiKey: 'unused', maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: server.url.replace(/\/v1$/, ''), apiKey: 'unused', maxRetries: 0 });
});
afterAll(async () => {
  await server.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const logged = (): UsageLine[] =>
  fs
    .readFileSync(logFile, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as UsageLine);
const lastLogged = (id: string) => logged().find((l) => l.id === id)!;

const SYSTEM = 'You are a research agent.';
const SEARCH = {
  type: 'object',
  properties: { query: { type: 'string' } },
  required: ['query'],
  additionalProperties: false,
};
const chatTools = [
  { type: 'function' as const, function: { name: 'search', description: 'web search', parameters: SEARCH } },
];

describe('the Responses API (the openai SDK as client)', () => {
  const tools = [
    { type: 'function' as const, name: 'search', description: 'web search', parameters: SEARCH, strict: true },
  ];

  it('answers with a message and a function call, usage as the Responses API spells it, billed as Chat Completions bills the same conversation', async () => {
    const r = await openai.responses.create({
      model: 'seed-calibrated',
      instructions: SYSTEM,
      input: 'Collect sources.',
      tools,
      seed: 3,
    } as never);
    expect(r.object).toBe('response');
    expect(r.status).toBe('completed');
    expect(r.output.map((o) => o.type)).toEqual(['message', 'function_call']);
    const call = r.output[1] as OpenAI.Responses.ResponseFunctionToolCall;
    expect(JSON.parse(call.arguments)).toHaveProperty('query');
    expect(r.output_text).toMatch(/^Thought 1: /);
    const chat = await openai.chat.completions.create({
      model: 'seed-calibrated',
      seed: 3,
      messages: [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: 'Collect sources.' },
      ],
      tools: chatTools,
    });
    expect(r.usage).toEqual({
      input_tokens: chat.usage!.prompt_tokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: chat.usage!.completion_tokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: chat.usage!.total_tokens,
    });
    expect(call.call_id).toBe(chat.choices[0]!.message.tool_calls![0]!.id);
    expect(lastLogged(r.id)).toMatchObject({
      api: 'responses',
      prompt_tokens: r.usage!.input_tokens,
      completion_tokens: r.usage!.output_tokens,
      tool_calls: ['search'],
    });
  });

  it('previous_response_id: the stored conversation is counted whole, streamed with the event sequence the SDK accumulates', async () => {
    const first = await openai.responses.create({
      model: 'seed-calibrated',
      instructions: SYSTEM,
      input: 'Collect sources.',
      tools,
      seed: 5,
    } as never);
    const call = first.output.find((o) => o.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
    const stream = openai.responses.stream({
      model: 'seed-calibrated',
      instructions: SYSTEM,
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'page one' }],
      tools,
      seed: 5,
    } as never);
    const types: string[] = [];
    stream.on('event', (e) => types.push(e.type));
    const second = await stream.finalResponse();
    expect(types[0]).toBe('response.created');
    expect(types).toContain('response.output_text.delta');
    expect(types).toContain('response.function_call_arguments.delta');
    expect(types.at(-1)).toBe('response.completed');
    // The same conversation sent whole, over Chat Completions, bills the same input.
    const msg = first.output[0] as OpenAI.Responses.ResponseOutputMessage;
    const whole = await openai.chat.completions.create({
      model: 'seed-calibrated',
      seed: 5,
      tools: chatTools,
      messages: [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: 'Collect sources.' },
        {
          role: 'assistant',
          content: (msg.content[0] as { text: string }).text,
          tool_calls: [
            { id: call.call_id, type: 'function', function: { name: call.name, arguments: call.arguments } },
          ],
        },
        { role: 'tool', tool_call_id: call.call_id, content: 'page one' },
      ],
    });
    expect(second.usage!.input_tokens).toBe(whole.usage!.prompt_tokens);
    expect(second.usage!.output_tokens).toBe(whole.usage!.completion_tokens);
    expect(second.output_text).toMatch(/^Thought 2: /);
    expect(lastLogged(second.id)).toMatchObject({
      api: 'responses',
      stream: true,
      prompt_tokens: second.usage!.input_tokens,
    });
  });

  it('item_reference inputs resolve to stored output items; unknown ids and store: false are refused in OpenAI error shape', async () => {
    const first = await openai.responses.create({
      model: 'seed-calibrated',
      input: 'Collect sources.',
      tools,
      seed: 7,
    } as never);
    const [msg, call] = first.output as [
      OpenAI.Responses.ResponseOutputMessage,
      OpenAI.Responses.ResponseFunctionToolCall,
    ];
    const byRef = await openai.responses.create({
      model: 'seed-calibrated',
      tools,
      seed: 7,
      input: [
        { role: 'user', content: 'Collect sources.' },
        { type: 'item_reference', id: msg.id },
        { type: 'item_reference', id: call.id! },
        { type: 'function_call_output', call_id: call.call_id, output: 'x' },
      ],
    } as never);
    const byPrev = await openai.responses.create({
      model: 'seed-calibrated',
      tools,
      seed: 7,
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'x' }],
    } as never);
    expect(byRef.usage).toEqual(byPrev.usage);
    await expect(
      openai.responses.create({
        model: 'seed-calibrated',
        input: [{ type: 'item_reference', id: 'msg_nope' }],
      } as never),
    ).rejects.toMatchObject({ status: 400, error: { message: "Item with id 'msg_nope' not found.", param: 'input' } });
    const unstored = await openai.responses.create({ model: 'seed-calibrated', input: 'go', store: false } as never);
    await expect(
      openai.responses.create({ model: 'seed-calibrated', input: 'go', previous_response_id: unstored.id } as never),
    ).rejects.toMatchObject({
      status: 400,
      error: { code: 'previous_response_not_found', param: 'previous_response_id' },
    });
    // An id of a megabyte is refused without being quoted back or logged.
    const huge = `resp_${'x'.repeat(1 << 20)}`;
    const before = fs.readFileSync(logFile, 'utf8').length;
    const refused = await fetch(`${server.url}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'seed-calibrated', input: 'go', previous_response_id: huge }),
    });
    expect(refused.status).toBe(400);
    const said = await refused.text();
    expect(said).toContain('previous_response_id');
    expect(said.length).toBeLessThan(2000);
    expect(fs.readFileSync(logFile, 'utf8').length - before).toBeLessThan(2000);
    // A tool the sim cannot call (a provider's web search) is accepted and left alone, as Codex CLI sends it.
    const searching = await openai.responses.create({
      model: 'seed-calibrated',
      input: 'go',
      tools: [{ type: 'web_search' }],
    } as never);
    expect(searching.status).toBe('completed');
    expect(searching.output.map((i) => i.type)).not.toContain('function_call');
  });

  it('text.format json_schema: the answer is JSON valid for the schema, carrying the answer the scenario checks; max_output_tokens cuts it as incomplete', async () => {
    const schema = {
      type: 'object',
      properties: {
        result: { type: 'integer', minimum: 0 },
        explanation: { type: 'string', maxLength: 200 },
        confidence: { type: 'string', enum: ['low', 'high'] },
      },
      required: ['result', 'explanation', 'confidence'],
      additionalProperties: false,
    };
    const r = await openai.responses.create({
      model: 'tiny-agent',
      input: [
        { role: 'user', content: 'Sum of squares 1..100.' },
        { type: 'function_call', call_id: 'c1', name: 'run_python', arguments: '{"code":"print(1)"}' },
        { type: 'function_call_output', call_id: 'c1', output: '338350' },
      ],
      text: { format: { type: 'json_schema', name: 'answer', schema, strict: true } },
    } as never);
    const value = JSON.parse(r.output_text) as { result: number };
    expect(new Ajv().validate(schema, value)).toBe(true);
    expect(value.result).toBe(338350);
    const cut = await openai.responses.create({
      model: 'seed-calibrated',
      input: 'Collect sources.',
      tools,
      max_output_tokens: 5,
    } as never);
    expect(cut).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      usage: { output_tokens: 5 },
    });
  });
});

describe('structured output over Chat Completions', () => {
  it('response_format json_schema and json_object: JSON for the schema (asked with no tools, the sim answers at once)', async () => {
    const schema = {
      type: 'object',
      properties: { total: { type: 'number' }, note: { type: 'string' } },
      required: ['total', 'note'],
      additionalProperties: false,
    };
    const messages = [{ role: 'user' as const, content: 'Sum of squares 1..100.' }];
    const tool = await openai.chat.completions.create({
      model: 'tiny-agent',
      messages: [
        ...messages,
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'run_python', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c', content: '338350' },
      ],
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema, strict: true } },
    });
    const value = JSON.parse(tool.choices[0]!.message.content!) as { total: number };
    expect(new Ajv().validate(schema, value)).toBe(true);
    expect(value.total).toBe(338350);
    const obj = await openai.chat.completions.create({
      model: 'seed-calibrated',
      messages,
      response_format: { type: 'json_object' },
    });
    expect(JSON.parse(obj.choices[0]!.message.content!)).toEqual({ answer: expect.stringMatching(/^Answer 1: /) });
  });
});

describe('Anthropic Messages (the Anthropic TS SDK as client)', () => {
  const tools = [{ name: 'search', description: 'web search', input_schema: SEARCH as Anthropic.Tool.InputSchema }];

  it('answers with text and tool_use blocks; usage in Anthropic spelling; a tool_result round trip bills as Chat Completions does, streamed or not', async () => {
    const m = await anthropic.messages.create({
      model: 'seed-calibrated',
      max_tokens: 1024,
      system: SYSTEM,
      messages: [{ role: 'user', content: 'Collect sources.' }],
      tools,
      seed: 2,
    } as never);
    expect(m).toMatchObject({ type: 'message', role: 'assistant', stop_reason: 'tool_use', stop_sequence: null });
    expect(m.content.map((b) => b.type)).toEqual(['text', 'tool_use']);
    const use = m.content[1] as Anthropic.ToolUseBlock;
    expect(use.input).toHaveProperty('query');
    const chat = await openai.chat.completions.create({
      model: 'seed-calibrated',
      seed: 2,
      max_tokens: 1024,
      messages: [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: 'Collect sources.' },
      ],
      tools: chatTools,
    });
    expect(m.usage).toMatchObject({
      input_tokens: chat.usage!.prompt_tokens,
      output_tokens: chat.usage!.completion_tokens,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    });
    expect(lastLogged(m.id)).toMatchObject({
      api: 'messages',
      prompt_tokens: m.usage.input_tokens,
      tool_calls: ['search'],
    });

    const next = {
      model: 'seed-calibrated',
      max_tokens: 1024,
      system: SYSTEM,
      tools,
      seed: 2,
      messages: [
        { role: 'user', content: 'Collect sources.' },
        { role: 'assistant', content: m.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'page one' }] },
      ],
    };
    const events: string[] = [];
    const stream = anthropic.messages.stream(next as never);
    stream.on('streamEvent', (e) => events.push(e.type));
    const streamed = await stream.finalMessage();
    const whole = await anthropic.messages.create(next as never);
    expect(events[0]).toBe('message_start');
    expect(events).toContain('content_block_delta');
    expect(events.slice(-2)).toEqual(['message_delta', 'message_stop']);
    expect(streamed.content).toEqual(whole.content);
    expect(streamed.usage).toEqual(whole.usage);
    const chat2 = await openai.chat.completions.create({
      model: 'seed-calibrated',
      seed: 2,
      max_tokens: 1024,
      tools: chatTools,
      messages: [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: 'Collect sources.' },
        {
          role: 'assistant',
          content: (m.content[0] as Anthropic.TextBlock).text,
          tool_calls: [
            { id: use.id, type: 'function', function: { name: 'search', arguments: JSON.stringify(use.input) } },
          ],
        },
        { role: 'tool', tool_call_id: use.id, content: 'page one' },
      ],
    });
    expect(whole.usage.input_tokens).toBe(chat2.usage!.prompt_tokens);
  });

  it('stop_sequences end the text with stop_reason stop_sequence; a forced tool carries the answer as schema-valid JSON', async () => {
    const m = await anthropic.messages.create({
      model: 'seed-calibrated',
      max_tokens: 1024,
      messages: [{ role: 'user', content: 'go' }],
      stop_sequences: [' the'],
    });
    expect(m).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: ' the' });
    expect((m.content[0] as Anthropic.TextBlock).text).not.toContain(' the');
    const schema = {
      type: 'object' as const,
      properties: { total: { type: 'integer' }, summary: { type: 'string' } },
      required: ['total', 'summary'],
    };
    const forced = await anthropic.messages.create({
      model: 'tiny-agent',
      max_tokens: 1024,
      tools: [{ name: 'final_answer', input_schema: schema }],
      tool_choice: { type: 'tool', name: 'final_answer' },
      messages: [
        { role: 'user', content: 'Sum of squares 1..100.' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Thought 1: compute.' },
            { type: 'tool_use', id: 't1', name: 'final_answer', input: { total: 0, summary: 'x' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: '338350' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Thought 2: verify.' },
            { type: 'tool_use', id: 't2', name: 'final_answer', input: { total: 0, summary: 'x' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't2', content: '338350' }] },
      ],
    });
    const use = forced.content.find((b) => b.type === 'tool_use') as Anthropic.ToolUseBlock;
    expect(new Ajv().validate(schema, use.input)).toBe(true);
    expect(use.input).toMatchObject({ total: 338350 });
  });

  it('a Thread holds the conversation: a continued turn sends only its new messages and is billed the whole context; an unknown or spent turn is refused', async () => {
    const first = await anthropic.messages.create({
      model: 'seed-calibrated',
      max_tokens: 1024,
      system: SYSTEM,
      tools,
      seed: 4,
      thread: { type: 'create' },
      messages: [{ role: 'user', content: 'Collect sources.' }],
    } as never);
    const use = first.content.find((b) => b.type === 'tool_use') as Anthropic.ToolUseBlock;
    const result = { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'page one' }] };
    const continued = await anthropic.messages.create({
      model: 'seed-calibrated',
      max_tokens: 1024,
      seed: 4,
      thread: { type: 'continue', previous_message_id: first.id },
      messages: [result],
    } as never);
    const replayed = await anthropic.messages.create({
      model: 'seed-calibrated',
      max_tokens: 1024,
      system: SYSTEM,
      tools,
      seed: 4,
      messages: [{ role: 'user', content: 'Collect sources.' }, { role: 'assistant', content: first.content }, result],
    } as never);
    expect(continued.usage).toEqual(replayed.usage);
    expect(continued.content).toEqual(replayed.content);
    await expect(
      anthropic.messages.create({
        model: 'seed-calibrated',
        max_tokens: 10,
        thread: { type: 'continue', previous_message_id: first.id },
        messages: [result],
      } as never),
    ).rejects.toMatchObject({ status: 400, errorCode: 'thread_already_continued' });
    await expect(
      anthropic.messages.create({
        model: 'seed-calibrated',
        max_tokens: 10,
        thread: { type: 'continue', previous_message_id: 'msg_nope' },
        messages: [result],
      } as never),
    ).rejects.toMatchObject({ status: 404, errorCode: 'thread_not_found' });
  });

  it("refuses in Anthropic's error shape, which the SDK turns into its typed errors", async () => {
    await expect(
      anthropic.messages.create({
        model: 'claude-sonnet-4-5',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'x' }],
      }),
    ).rejects.toBeInstanceOf(Anthropic.NotFoundError);
    await expect(
      anthropic.messages.create({ model: 'seed-calibrated', messages: [{ role: 'user', content: 'x' }] } as never),
    ).rejects.toMatchObject({
      status: 400,
      error: {
        type: 'error',
        error: { type: 'invalid_request_error', message: expect.stringContaining('max_tokens') },
      },
    });
  });

  it('takes what Claude Code sends: a system message inside messages, thinking blocks sent back, a server tool — left alone', async () => {
    const r = await anthropic.messages.create({
      model: 'tiny-agent',
      max_tokens: 4096,
      thinking: { type: 'adaptive' },
      context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
      metadata: { user_id: JSON.stringify({ session_id: 's' }) },
      system: [{ type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral' } }],
      messages: [
        { role: 'user', content: 'compute the sum of squares' },
        { role: 'system', content: 'The user is working in /home/user/project.' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'x', signature: 'c2ln' },
            { type: 'redacted_thinking', data: 'ZA==' },
            { type: 'text', text: 'Thinking done.' },
          ],
        },
        { role: 'user', content: 'go on' },
      ],
      tools: [
        {
          name: 'Bash',
          input_schema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
        },
        { type: 'web_search_20250305', name: 'web_search' },
      ],
    } as never);
    expect(r.content.map((b) => b.type)).toContain('tool_use');
    expect(r.content.find((b) => b.type === 'tool_use')).toMatchObject({
      name: 'Bash',
      input: { command: expect.stringMatching(/^python3 -c '/) },
    });
  });
});

describe('each adapter reads back what it renders (what the gateway reads of an upstream)', () => {
  const answer: Answer = {
    uid: 'u1',
    model: 'm',
    created: 1,
    message: {
      role: 'assistant',
      content: 'Thought 1: look it up.',
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'search', arguments: '{"query":"a b c d e f"}' } },
      ],
    },
    usage: {
      prompt_tokens: 120,
      completion_tokens: 30,
      cached_tokens: 64,
      cache_write_tokens: 16,
      reasoning_tokens: 8,
    },
    finishReason: 'tool_calls',
  };
  const requests = {
    chat: { model: 'm', messages: [], stream_options: { include_usage: true } },
    responses: { body: { model: 'm', input: 'x' }, history: [] },
    messages: { body: { model: 'm', max_tokens: 10, messages: [] }, messages: [], tools: [] },
  };
  const wires = [chatWire, responsesWire(new ResponseStore()), messagesWire(new ResponseStore())] as const;
  it.each(wires.map((w) => [w.name, w] as const))('%s: whole and streamed', (name, w) => {
    const wire = w as typeof chatWire;
    const req = requests[name as keyof typeof requests] as never;
    const whole = wire.read(JSON.parse(JSON.stringify(wire.render(answer, req))));
    const text = wire
      .events(answer, req)
      .map((e) => `${e.event ? `event: ${e.event}\n` : ''}data: ${e.data}\n\n`)
      .join('');
    const streamed = readEvents(wire, parseSse(text));
    // The Responses API has no field for cache writes (OpenAI bills none); every other part survives each spelling.
    const { cache_write_tokens: _write, ...withoutWrites } = answer.usage!;
    const kept = name === 'responses' ? withoutWrites : answer.usage;
    for (const got of [whole, streamed]) {
      expect(got!.message.content).toBe(answer.message!.content);
      expect(got!.message.tool_calls).toEqual(answer.message!.tool_calls);
      expect(got!.finishReason).toBe('tool_calls');
      expect(usageFrom(got!.usage)).toEqual(kept);
    }
  });
});

describe('the response store', () => {
  it('drops the oldest answers past its count or its text budget, with their items', () => {
    const store = new ResponseStore(3, 1000);
    const said = (n: number) => [{ role: 'assistant' as const, content: 'x'.repeat(n) }];
    for (let i = 0; i < 5; i++) store.save(`r${i}`, said(10), [{ id: `item${i}` }]);
    expect([0, 1, 2, 3, 4].map((i) => store.conversation(`r${i}`) !== undefined)).toEqual([
      false,
      false,
      true,
      true,
      true,
    ]);
    expect(store.item('item1')).toBeUndefined();
    expect(store.item('item4')).toEqual({ id: 'item4' });
    store.save('big', said(990), []);
    // 990 + the newest 10 fit; everything older went.
    expect(store.size).toBe(2);
    expect(store.conversation('r4')).toBeDefined();
    expect(store.conversation('big')).toBeDefined();
  });
});
