// The sim answers the request it was given: it calls only the tools offered, with arguments valid
// against each tool's schema (checked by Ajv, an independent validator), keeps each profile's
// behaviour as repeated or varied calls, and honours tool_choice and stop like a provider.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ChatMessage, ChatRequest, ToolSpec } from '../src/contracts/chat.ts';
import { canonicalJson } from '../src/contracts/fingerprint.ts';
import { TokenCounter } from '../src/meter/tokens.ts';
import { loadProfile, loadProfileFile } from '../src/sim/profile.ts';
import { SimModel } from '../src/sim/sim-model.ts';
import { mappingNotes } from '../src/sim/offered-tools.ts';
import { startServe } from '../src/serve/server.ts';

const counter = new TokenCounter();
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addFormat('date', /^\d{4}-\d{2}-\d{2}$/);

const zodTool = (name: string, schema: z.ZodType): ToolSpec => ({
  type: 'function',
  function: { name, parameters: z.toJSONSchema(schema) as Record<string, unknown> },
});

/** Tool sets as agents send them: zod (Vercel AI SDK, OpenAI Agents SDK for JS), Pydantic v2, hand-written. */
const TOOLSETS: Record<string, ToolSpec[]> = {
  zod: [
    zodTool(
      'lookup_order',
      z.object({
        order_id: z.string().min(3).describe('Order number'),
        fields: z
          .array(z.enum(['status', 'items', 'total']))
          .min(1)
          .max(2),
        filters: z.object({ since: z.iso.date().optional(), limit: z.number().int().min(1).max(50) }),
        mode: z.union([z.literal('fast'), z.literal('full')]),
        reason: z.string().nullable(),
      }),
    ),
  ],
  pydantic: (
    JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'fixtures/pydantic-tools.json'), 'utf8')) as {
      tools: ToolSpec[];
    }
  ).tools,
  handwritten: [
    {
      type: 'function',
      function: {
        name: 'run_python',
        description: 'Run Python code.',
        parameters: {
          type: 'object',
          properties: { code: { type: 'string' } },
          required: ['code'],
          additionalProperties: false,
        },
      },
    },
    {
      type: 'function',
      function: { name: 'get_time', parameters: { type: 'object', properties: {}, additionalProperties: false } },
    },
    { type: 'function', function: { name: 'noop' } },
  ],
  'enum only': [
    {
      type: 'function',
      function: {
        name: 'set_level',
        parameters: {
          type: 'object',
          properties: { level: { type: 'string', enum: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'] } },
          required: ['level'],
        },
      },
    },
  ],
};

const REACT_PROFILES = [
  'seed-calibrated',
  'tiny-agent',
  'autogpt-recursive-verification',
  'downloads-reorg',
  'perfectionist',
  'reflection-reopens',
];

interface Call {
  name: string;
  args: string;
}

/** Plays a loop against the in-process sim: each tool call gets an answer, until it answers or `steps` run out. */
async function play(
  profile: string,
  tools: ToolSpec[] | undefined,
  steps: number,
  extra: Partial<ChatRequest> = {},
  seed = 3,
): Promise<{ calls: Call[]; texts: string[] }> {
  const p = profile.endsWith('.yaml') ? loadProfileFile(profile) : loadProfile(profile);
  const sim = new SimModel(`sim:${p.id}`, p, counter, { promptCache: false });
  const messages: ChatMessage[] = [
    { role: 'system', content: 'You are a helpful agent.' },
    { role: 'user', content: 'Do the task.' },
  ];
  const calls: Call[] = [];
  const texts: string[] = [];
  for (let i = 0; i < steps; i++) {
    const { message } = await sim.complete(
      { model: sim.id, messages, ...(tools ? { tools } : {}), seed, ...extra },
      { runId: 'r', scenario: 's', step: i + 1, round: 0, role: 'act' },
    );
    messages.push(message);
    texts.push(message.content ?? '');
    if (!message.tool_calls?.length) break;
    for (const c of message.tool_calls) {
      calls.push({ name: c.function.name, args: c.function.arguments });
      messages.push({ role: 'tool', tool_call_id: c.id, content: `result of ${c.function.name}` });
    }
  }
  return { calls, texts };
}

function expectValid(calls: Call[], tools: ToolSpec[]): void {
  for (const c of calls) {
    const spec = tools.find((t) => t.function.name === c.name);
    expect(spec, `${c.name} was not offered`).toBeDefined();
    const args = JSON.parse(c.args) as unknown;
    const schema = spec!.function.parameters ?? { type: 'object', properties: {}, additionalProperties: false };
    const validate = ajv.compile(schema);
    expect(validate(args), `${c.name}(${c.args}): ${ajv.errorsText(validate.errors)}`).toBe(true);
  }
}

const fingerprints = (calls: Call[]) => calls.map((c) => `${c.name}(${canonicalJson(JSON.parse(c.args))})`);

describe('the sim calls only offered tools, with arguments valid against their schemas', () => {
  for (const [set, tools] of Object.entries(TOOLSETS)) {
    it.each(REACT_PROFILES)(`${set} tools, profile %s`, async (profile) => {
      const { calls } = await play(profile, tools, 12);
      expect(calls.length).toBeGreaterThan(0);
      expectValid(calls, tools);
    });
  }

  it('fills a Pydantic $ref to $defs with a nested object, an enum from $defs, and a bounded string array', async () => {
    const tools = TOOLSETS.pydantic!.filter((t) => t.function.name === 'CreateTicket');
    const { calls } = await play('seed-calibrated', tools, 3);
    const args = JSON.parse(calls[0]!.args) as Record<string, unknown>;
    expect(Object.keys(args).sort()).toEqual(['priority', 'ship_to', 'tags', 'title']);
    expect(args.ship_to).toMatchObject({ country: expect.stringMatching(/^(DE|FR|US)$/) });
    expectValid(calls, tools);
  });
});

describe('profiles keep their behaviour on tools they do not know', () => {
  const tools = TOOLSETS.pydantic!;

  it('converge (seed-calibrated): a different call every step', async () => {
    const f = fingerprints((await play('seed-calibrated', tools, 20)).calls);
    expect(f).toHaveLength(20);
    expect(new Set(f).size).toBe(20);
  });

  it('recursive-verify: a varied call, then the same fixed call, again and again', async () => {
    const f = fingerprints((await play('autogpt-recursive-verification', tools, 10)).calls);
    const odd = f.filter((_, i) => i % 2 === 0);
    const even = f.filter((_, i) => i % 2 === 1);
    expect(new Set(odd).size).toBe(5);
    expect(new Set(even).size).toBe(1);
  });

  it('cycle (downloads-reorg): four calls in a cycle, each repeated every fourth step', async () => {
    const f = fingerprints((await play('downloads-reorg', TOOLSETS.handwritten, 12)).calls);
    expect(new Set(f).size).toBe(4);
    for (let i = 4; i < 12; i++) expect(f[i]).toBe(f[i - 4]);
  });

  it('stuck: the same call every step', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-stuck-'));
    const file = path.join(dir, 'stuck-one.yaml');
    fs.writeFileSync(
      file,
      'id: stuck-one\ndescription: Checks one thing forever.\nbehaviour: stuck\nactions:\n  - tool: check_status\n    args: { what: all }\n',
    );
    try {
      const f = fingerprints((await play(file, tools, 6)).calls);
      expect(f).toHaveLength(6);
      expect(new Set(f).size).toBe(1);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('perfectionist: after its plan, a distinct improvement every step', async () => {
    const f = fingerprints((await play('perfectionist', TOOLSETS.handwritten, 14)).calls);
    expect(new Set(f.slice(2)).size).toBe(12);
  });

  it('its own tools, offered as the scenario declares them, are called exactly as before', async () => {
    const search: ToolSpec = {
      type: 'function',
      function: {
        name: 'search',
        parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
      },
    };
    const { calls } = await play('seed-calibrated', [search], 2);
    expect(calls.map((c) => JSON.parse(c.args))).toEqual([
      { query: 'agent loop token cost, source 1' },
      { query: 'agent loop token cost, source 2' },
    ]);
  });
});

describe('tool_choice, stop', () => {
  const tools = TOOLSETS.handwritten!;

  it('no tools offered: text only', async () => {
    const { calls, texts } = await play('seed-calibrated', undefined, 3);
    expect(calls).toHaveLength(0);
    expect(texts[0]).toMatch(/^Thought 1: /);
  });

  it("tool_choice 'none': text only", async () => {
    const { calls } = await play('seed-calibrated', tools, 3, { tool_choice: 'none' });
    expect(calls).toHaveLength(0);
  });

  it('a named tool_choice: every call is to that tool', async () => {
    const { calls } = await play('autogpt-recursive-verification', tools, 6, {
      tool_choice: { type: 'function', function: { name: 'get_time' } },
    });
    expect(calls).toHaveLength(6);
    expect(new Set(calls.map((c) => c.name))).toEqual(new Set(['get_time']));
    expectValid(calls, tools);
  });

  it("tool_choice 'required': a tool call even where the profile would answer", async () => {
    const auto = await play('tiny-agent', tools, 8);
    expect(auto.calls.length).toBeLessThan(8);
    const required = await play('tiny-agent', tools, 8, { tool_choice: 'required' });
    expect(required.calls).toHaveLength(8);
  });

  it('stop: the text ends before the first stop sequence, and nothing after it (no tool call) is written', async () => {
    const full = await play('seed-calibrated', tools, 1);
    const word = full.texts[0]!.split(' ')[4]!;
    const cut = await play('seed-calibrated', tools, 1, { stop: ['zzz-never', ` ${word}`] });
    expect(cut.calls).toHaveLength(0);
    expect(cut.texts[0]).toBe(full.texts[0]!.slice(0, full.texts[0]!.indexOf(` ${word}`)));
  });
});

describe('when the agent brings other tools, it is told once how the sim plays its profile on them', () => {
  const search: ToolSpec = {
    type: 'function',
    function: {
      name: 'search',
      parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    },
  };

  it('paginated-search on a query-only search: the page is lost, so its calls repeat and spin may stop them', () => {
    expect(mappingNotes(loadProfile('paginated-search'), [search])).toEqual([
      'search_invoices is not among your tools: played on your search; the argument that changes from call to call (page) is lost, so repeated calls come out identical and the spin brake may stop runs the profile would not spin',
    ]);
  });

  it("tiny-agent on a search tool: run_python's code written to the search schema", () => {
    expect(mappingNotes(loadProfile('tiny-agent'), [search])).toEqual([
      'run_python is not among your tools: played on your search, with arguments written to its schema (code has no place in it)',
    ]);
  });

  it("nothing to say when the agent offers the profile's own tools, or none", () => {
    const own: ToolSpec = {
      type: 'function',
      function: {
        name: 'run_python',
        parameters: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
      },
    };
    expect(mappingNotes(loadProfile('tiny-agent'), [own])).toEqual([]);
    expect(mappingNotes(loadProfile('tiny-agent'), [])).toEqual([]);
  });

  it('bench serve tells its host once per profile and set of tools, however many requests', async () => {
    const told: Array<[string, string[]]> = [];
    const server = await startServe({
      host: '127.0.0.1',
      port: 0,
      latencyMs: 0,
      errorRate: 0,
      faults: [],
      retryAfterS: 1,
      promptCache: false,
      onToolMapping: (p, notes) => told.push([p, notes]),
    });
    try {
      const ask = () =>
        fetch(`${server.url}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'paginated-search',
            messages: [{ role: 'user', content: 'go' }],
            tools: [search],
          }),
        });
      for (let i = 0; i < 3; i++) expect((await ask()).status).toBe(200);
      expect(told).toEqual([['paginated-search', mappingNotes(loadProfile('paginated-search'), [search])]]);
    } finally {
      await server.close();
    }
  });
});
