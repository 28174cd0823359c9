// Real agent frameworks on their defaults against plain `bench serve`, each a small ReAct agent with
// two tools declared its own way (zod: nested objects, enums, optional and bounded fields):
// the OpenAI Agents SDK (Responses API), the AI SDK's openai(model) (Responses API) and
// openai.chat(model), LangGraph's createReactAgent on ChatOpenAI with streaming off and on, and the
// Anthropic SDK's tool runner (Messages, streamed and not). Each agent process runs with a fetch
// guard (test/fixtures/net-guard.mjs) that records every loopback exchange and refuses any other
// address at once, so the test sees what each framework sent and got, and what else it reached for.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer, UsageLine } from '../src/serve/server.ts';
import { parseSse, type WireAdapter } from '../src/serve/wire/adapter.ts';
import { chatAdapter } from '../src/serve/wire/chat.ts';
import { messagesAdapter } from '../src/serve/wire/messages.ts';
import { ResponseStore } from '../src/serve/wire/response-store.ts';
import { responsesAdapter } from '../src/serve/wire/responses.ts';
import { serve } from './serve-helpers.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-frameworks-serve-'));
const logFile = path.join(tmp, 'usage.jsonl');

interface Case {
  name: string;
  script: string;
  env?: Record<string, string>;
  route: string;
  /** Addresses beyond loopback the framework reaches for on these settings (refused by the guard). */
  reaches: RegExp | null;
}

const CASES: Case[] = [
  { name: 'OpenAI Agents SDK (default: Responses API)', script: 'agents-sdk-agent.mjs', route: '/v1/responses', reaches: /^https:\/\/api\.openai\.com\/v1\/traces\/ingest$/ },
  { name: 'AI SDK openai(model) (default: Responses API), structured answer', script: 'ai-sdk-responses-agent.mjs', route: '/v1/responses', reaches: null },
  { name: 'AI SDK openai.chat(model), structured answer', script: 'ai-sdk-responses-agent.mjs', env: { AI_SDK_API: 'chat' }, route: '/v1/chat/completions', reaches: null },
  { name: 'LangGraph createReactAgent, streaming off', script: 'langgraph-agent.mjs', route: '/v1/chat/completions', reaches: null },
  { name: 'LangGraph createReactAgent, streaming on (invoked)', script: 'langgraph-agent.mjs', env: { LANGGRAPH_STREAMING: 'on' }, route: '/v1/chat/completions', reaches: /^https:\/\/tiktoken\.pages\.dev\/js\/\w+\.json$/ },
  { name: 'LangGraph createReactAgent, streaming on, graph streamed (messages)', script: 'langgraph-agent.mjs', env: { LANGGRAPH_STREAMING: 'on', LANGGRAPH_STREAM_GRAPH: 'on' }, route: '/v1/chat/completions', reaches: null },
  { name: 'Anthropic SDK tool runner', script: 'anthropic-agent.mjs', route: '/v1/messages', reaches: null },
  { name: 'Anthropic SDK tool runner, streamed', script: 'anthropic-agent.mjs', env: { ANTHROPIC_STREAM: 'on' }, route: '/v1/messages', reaches: null },
];

interface Exchange {
  url?: string;
  request?: Record<string, unknown>;
  status?: number;
  response?: string;
  blocked?: string;
}

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
  usage: Array<{ input: number; output: number; id: string }>;
  wire: Exchange[];
}

let server: RunningServer;
const outcomes = new Map<string, Outcome>();

function runAgent(c: Case, i: number): Promise<Outcome> {
  const usageDir = path.join(tmp, `usage-${i}`);
  fs.mkdirSync(usageDir);
  const wireLog = path.join(tmp, `wire-${i}.jsonl`);
  const env = {
    PATH: process.env.PATH,
    HOME: tmp,
    OPENAI_BASE_URL: server.url,
    OPENAI_API_KEY: 'unused',
    ANTHROPIC_BASE_URL: server.url.replace(/\/v1$/, ''),
    ANTHROPIC_API_KEY: 'unused',
    LOOPBENCH_MODEL: 'tiny-agent',
    LOOPBENCH_RUN_ID: 'run',
    AGENT_USAGE_DIR: usageDir,
    AGENT_WIRE_LOG: wireLog,
    ...c.env,
  };
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', path.join(ROOT, 'test/fixtures/net-guard.mjs'), path.join(ROOT, 'examples/agents', c.script)], { cwd: ROOT, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => {
      const usageFile = path.join(usageDir, 'run.json');
      const usage = fs.existsSync(usageFile) ? (JSON.parse(fs.readFileSync(usageFile, 'utf8')) as Outcome['usage']) : [];
      const wire = fs.existsSync(wireLog) ? fs.readFileSync(wireLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Exchange) : [];
      resolve({ code, stdout, stderr, usage, wire });
    });
  });
}

beforeAll(async () => {
  server = await serve({ logFile });
  // All at once: each is a process of its own, and the server answers them in parallel.
  const done = await Promise.all(CASES.map((c, i) => runAgent(c, i)));
  CASES.forEach((c, i) => outcomes.set(c.name, done[i]!));
}, 120_000);

afterAll(async () => {
  await server.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const ADAPTERS: Record<string, WireAdapter> = { '/v1/chat/completions': chatAdapter, '/v1/responses': responsesAdapter(new ResponseStore()), '/v1/messages': messagesAdapter(new ResponseStore()) } as Record<string, WireAdapter>;

/** The tools a request offered, by name, with the JSON schema the framework sent for each. */
function offered(route: string, request: Record<string, unknown>): Map<string, Record<string, unknown>> {
  const tools = (request.tools ?? []) as Array<Record<string, any>>;
  return new Map(tools.map((t) => (route === '/v1/chat/completions' ? [t.function.name, t.function.parameters] : route === '/v1/responses' ? [t.name, t.parameters] : [t.name, t.input_schema])));
}

/** An exchange's answer as the server sent it, read back by the protocol's own adapter. */
function answerOf(route: string, e: Exchange) {
  const wire = ADAPTERS[route]!;
  return e.request?.stream === true ? wire.readEvents(parseSse(e.response!)) : wire.read(JSON.parse(e.response!));
}

const idOf = (e: Exchange): string => {
  if (e.request?.stream !== true) return (JSON.parse(e.response!) as { id: string }).id;
  const first = JSON.parse(parseSse(e.response!)[0]!.data) as { id?: string; response?: { id: string }; message?: { id: string } };
  return first.id ?? first.response?.id ?? first.message!.id;
};

describe.each(CASES)('$name', (c) => {
  it('runs the ReAct loop on its defaults to the checked answer, over the protocol it speaks', () => {
    const o = outcomes.get(c.name)!;
    expect(o.code, o.stderr).toBe(0);
    expect(o.stdout).toMatch(/338350/);
    const calls = o.wire.filter((e) => e.url);
    expect(calls.length).toBeGreaterThanOrEqual(3);
    for (const e of calls) expect(e).toMatchObject({ url: c.route, status: 200 });
  });

  it('every tool call is valid for the JSON schema the framework sent', () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    let checked = 0;
    let schemas = new Map<string, Record<string, unknown>>();
    for (const e of outcomes.get(c.name)!.wire.filter((x) => x.url)) {
      // An Anthropic Thread's later turns leave the tools out: they are the first turn's.
      if (e.request!.tools !== undefined || !e.request!.thread) schemas = offered(c.route, e.request!);
      expect([...schemas.keys()].sort()).toEqual(['execute_code', 'search']);
      for (const call of answerOf(c.route, e)!.message.tool_calls ?? []) {
        const { $schema: _dialect, ...schema } = schemas.get(call.function.name)!;
        const args = JSON.parse(call.function.arguments) as unknown;
        expect(ajv.validate(schema, args), `${call.function.name} ${call.function.arguments}: ${ajv.errorsText()}`).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(2);
  });

  it("the framework's own reported usage equals what bench serve metered, call for call", () => {
    const o = outcomes.get(c.name)!;
    const metered = new Map(fs.readFileSync(logFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as UsageLine).map((l) => [l.id, l]));
    const ids = o.wire.filter((e) => e.url).map(idOf);
    expect(o.usage.map((u) => u.id)).toEqual(ids);
    for (const u of o.usage) {
      const line = metered.get(u.id)!;
      expect(line.api).toBe(c.route.split('/').at(-1) === 'completions' ? 'chat' : c.route.split('/').at(-1));
      expect({ input: u.input, output: u.output }).toEqual({ input: line.prompt_tokens, output: line.completion_tokens });
    }
  });

  it(c.reaches ? 'reaches beyond loopback only where the framework itself does (refused here at once, so nothing hangs)' : 'reaches nothing beyond loopback', () => {
    const blocked = outcomes.get(c.name)!.wire.flatMap((e) => (e.blocked ? [e.blocked] : []));
    if (!c.reaches) return expect(blocked).toEqual([]);
    expect(blocked.length).toBeGreaterThan(0);
    for (const url of blocked) expect(url).toMatch(c.reaches);
  });
});
