// Tool definitions billed as OpenAI bills them: the prompts the cookbook ("How to count tokens with
// tiktoken") measured with the API for gpt-4o and gpt-4o-mini, reproduced exactly, in process and
// through `bench serve` with the official SDK; and the extensions of its rule, against lines
// written out by hand.
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { ChatMessage, ToolSpec } from '../src/contracts/chat.ts';
import { TokenCounter } from '../src/meter/tokens.ts';
import { FAKE_KEY, serve } from './serve-helpers.ts';

const T = (s: string) => encode(s).length;

const weather = (unit: Record<string, unknown>): ToolSpec[] => [
  {
    type: 'function',
    function: {
      name: 'get_current_weather',
      description: 'Get the current weather in a given location',
      parameters: {
        type: 'object',
        properties: { location: { type: 'string', description: 'The city and state, e.g. San Francisco, CA' }, unit },
        required: ['location'],
      },
    },
  },
];
const UNIT = { type: 'string', description: 'The unit of temperature to return', enum: ['celsius', 'fahrenheit'] };
const weatherMessages: ChatMessage[] = [
  { role: 'system', content: 'You are a helpful assistant that can answer to questions about the weather.' },
  { role: 'user', content: "What's the weather like in San Francisco?" },
];

/** The cookbook's messages-only example (names included). */
const jargonMessages: ChatMessage[] = [
  {
    role: 'system',
    content: 'You are a helpful, pattern-following assistant that translates corporate jargon into plain English.',
  },
  { role: 'system', name: 'example_user', content: 'New synergies will help drive top-line growth.' },
  { role: 'system', name: 'example_assistant', content: 'Things working well together will increase revenue.' },
  {
    role: 'system',
    name: 'example_user',
    content: "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage.",
  },
  {
    role: 'system',
    name: 'example_assistant',
    content: "Let's talk later when we're less busy about how to do better.",
  },
  { role: 'user', content: "This late pivot means we don't have time to boil the ocean for the client deliverable." },
];

const prompt = (messages: ChatMessage[], tools?: ToolSpec[]) => new TokenCounter().prompt(messages, tools);
const withoutTools = prompt(weatherMessages);

describe("the cookbook's API-measured prompts (gpt-4o, gpt-4o-mini)", () => {
  it('messages with names: 124 tokens', () => {
    expect(prompt(jargonMessages)).toBe(124);
  });

  it('get_current_weather with its two-value enum: 101 tokens', () => {
    expect(prompt(weatherMessages, weather(UNIT))).toBe(101);
  });

  it('bench serve bills the same 101 to the official SDK', async () => {
    const server = await serve();
    try {
      const client = new OpenAI({ apiKey: FAKE_KEY, baseURL: server.url, maxRetries: 0 });
      const r = await client.chat.completions.create({
        model: 'seed-calibrated',
        messages: weatherMessages,
        tools: weather(UNIT) as OpenAI.Chat.Completions.ChatCompletionTool[],
      });
      expect(r.usage!.prompt_tokens).toBe(101);
    } finally {
      await server.close();
    }
  });
});

describe('the rule, written out by hand', () => {
  // 12 per request, 7 + `name:description` per function, 3 before its properties,
  // 3 + `key:type:description` per property, an enum −3 + (3 + value) per value.
  const fn = 7 + T('get_current_weather:Get the current weather in a given location');
  const location = 3 + T('location:string:The city and state, e.g. San Francisco, CA');
  const unitLine = 3 + T('unit:string:The unit of temperature to return');

  it('every enum value counts: ten values cost their own tokens plus 3 each', () => {
    const values = [
      'kelvin',
      'celsius',
      'fahrenheit',
      'rankine',
      'delisle',
      'newton',
      'reaumur',
      'romer',
      'planck',
      'gas mark',
    ];
    const expected = 12 + fn + 3 + location + unitLine - 3 + values.reduce((s, v) => s + 3 + T(v), 0);
    expect(prompt(weatherMessages, weather({ ...UNIT, enum: values })) - withoutTools).toBe(expected);
    expect(prompt(weatherMessages, weather({ ...UNIT, enum: values }))).toBeGreaterThan(101);
  });

  it('a description loses one trailing full stop; a missing one counts as empty; required is not counted', () => {
    const plain = prompt(
      weatherMessages,
      weather({ type: 'string', description: 'The unit of temperature to return' }),
    );
    expect(
      prompt(weatherMessages, weather({ type: 'string', description: 'The unit of temperature to return.' })),
    ).toBe(plain);
    expect(plain - withoutTools).toBe(12 + fn + 3 + location + unitLine);
    expect(prompt(weatherMessages, weather({ type: 'string' })) - withoutTools).toBe(
      12 + fn + 3 + location + 3 + T('unit:string:'),
    );
    const tools = weather(UNIT);
    const allRequired = [
      {
        ...tools[0]!,
        function: {
          ...tools[0]!.function,
          parameters: { ...tools[0]!.function.parameters, required: ['location', 'unit'] },
        },
      },
    ] as ToolSpec[];
    expect(prompt(weatherMessages, allRequired)).toBe(101);
  });

  it('nested objects and arrays count their properties and enums like top-level ones', () => {
    const tools: ToolSpec[] = [
      {
        type: 'function',
        function: {
          name: 'book',
          description: 'Book a trip.',
          parameters: {
            type: 'object',
            properties: {
              traveller: {
                type: 'object',
                description: 'Who travels',
                properties: { name: { type: 'string', description: 'Full name' }, age: { type: 'integer' } },
              },
              legs: {
                type: 'array',
                description: 'The legs',
                items: {
                  type: 'object',
                  properties: { from: { type: 'string' }, class: { type: 'string', enum: ['economy', 'business'] } },
                },
              },
              tags: { type: 'array', items: { type: 'string', enum: ['work', 1] } },
              note: { type: ['string', 'null'] },
            },
          },
        },
      },
      { type: 'function', function: { name: 'ping' } },
    ];
    const expected =
      12 +
      (7 + T('book:Book a trip') + 3) +
      (3 + T('traveller:object:Who travels') + 3 + (3 + T('name:string:Full name')) + (3 + T('age:integer:'))) +
      (3 +
        T('legs:array:The legs') +
        3 +
        (3 + T('from:string:')) +
        (3 + T('class:string:') - 3 + (3 + T('economy')) + (3 + T('business')))) +
      (3 + T('tags:array:') - 3 + (3 + T('work')) + (3 + T('1'))) +
      (3 + T('note:string | null:')) +
      (7 + T('ping:'));
    expect(prompt(weatherMessages, tools) - withoutTools).toBe(expected);
  });

  it('no tools, no tool tokens', () => {
    expect(prompt(weatherMessages, [])).toBe(withoutTools);
    expect(withoutTools).toBe(33);
  });
});
