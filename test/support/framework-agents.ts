// The framework agents of examples/agents/ as test cases, and how a test reads what each one sent
// and got: the exchanges the fetch guard (test/fixtures/net-guard.mjs) recorded, read back by the
// protocol's own adapter. Shared by the tests against plain `bench serve` and through the gateway.
import fs from 'node:fs';
import { Ajv } from 'ajv';
import path from 'node:path';
import type { WireAdapter } from '../../src/wire/adapter.ts';
import { chatWire } from '../../src/wire/chat/adapter.ts';
import { messagesWire } from '../../src/wire/messages/adapter.ts';
import { responsesWire } from '../../src/wire/responses/adapter.ts';
import { parseSse, readEvents } from '../../src/wire/sse.ts';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const GUARD = path.join(ROOT, 'test/fixtures/net-guard.mjs');

export interface Case {
  name: string;
  script: string;
  env?: Record<string, string>;
  route: string;
  /** Addresses beyond loopback the framework reaches for on these settings (refused by the guard). */
  reaches: RegExp | null;
}

export const CASES: Case[] = [
  {
    name: 'OpenAI Agents SDK (default: Responses API)',
    script: 'agents-sdk-agent.mjs',
    route: '/v1/responses',
    reaches: /^https:\/\/api\.openai\.com\/v1\/traces\/ingest$/,
  },
  {
    name: 'AI SDK openai(model) (default: Responses API), structured answer',
    script: 'ai-sdk-responses-agent.mjs',
    route: '/v1/responses',
    reaches: null,
  },
  {
    name: 'AI SDK openai.chat(model), structured answer',
    script: 'ai-sdk-responses-agent.mjs',
    env: { AI_SDK_API: 'chat' },
    route: '/v1/chat/completions',
    reaches: null,
  },
  {
    name: 'LangGraph createReactAgent, streaming off',
    script: 'langgraph-agent.mjs',
    route: '/v1/chat/completions',
    reaches: null,
  },
  {
    name: 'LangGraph createReactAgent, streaming on (invoked)',
    script: 'langgraph-agent.mjs',
    env: { LANGGRAPH_STREAMING: 'on' },
    route: '/v1/chat/completions',
    reaches: /^https:\/\/tiktoken\.pages\.dev\/js\/\w+\.json$/,
  },
  {
    name: 'LangGraph createReactAgent, streaming on, graph streamed (messages)',
    script: 'langgraph-agent.mjs',
    env: { LANGGRAPH_STREAMING: 'on', LANGGRAPH_STREAM_GRAPH: 'on' },
    route: '/v1/chat/completions',
    reaches: null,
  },
  { name: 'Anthropic SDK tool runner', script: 'anthropic-agent.mjs', route: '/v1/messages', reaches: null },
  {
    name: 'Anthropic SDK tool runner, streamed',
    script: 'anthropic-agent.mjs',
    env: { ANTHROPIC_STREAM: 'on' },
    route: '/v1/messages',
    reaches: null,
  },
];

export interface Exchange {
  url?: string;
  request?: Record<string, unknown>;
  status?: number;
  response?: string;
  blocked?: string;
}

export interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
  usage: Array<{ input: number; output: number; id: string }>;
  wire: Exchange[];
}

/** The guard's log of one run under AGENT_WIRE_DIR. */
export const wireFile = (dir: string, runId: string) => path.join(dir, `${runId.replace(/[^\w.-]/g, '_')}.jsonl`);

/** The exchanges one agent process made, in order (the guard's log). */
export function readWire(file: string): Exchange[] {
  return fs.existsSync(file)
    ? fs
        .readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Exchange)
    : [];
}

const ADAPTERS: Record<string, WireAdapter> = {
  '/v1/chat/completions': chatWire,
  '/v1/responses': responsesWire(),
  '/v1/messages': messagesWire(),
} as Record<string, WireAdapter>;

/** The tools a request offered, by name, with the JSON schema the framework sent for each. */
export function offered(route: string, request: Record<string, unknown>): Map<string, Record<string, unknown>> {
  const tools = (request.tools ?? []) as Array<Record<string, any>>;
  return new Map(
    tools.map((t) =>
      route === '/v1/chat/completions'
        ? [t.function.name, t.function.parameters]
        : route === '/v1/responses'
          ? [t.name, t.parameters]
          : [t.name, t.input_schema],
    ),
  );
}

/** An exchange's answer as the server sent it, read back by the protocol's own adapter. */
export function answerOf(route: string, e: Exchange) {
  const wire = ADAPTERS[route]!;
  return e.request?.stream === true ? readEvents(wire, parseSse(e.response!)) : wire.read(JSON.parse(e.response!));
}

/** The loopbench code of a refusal, in either error shape (OpenAI's error.code; Anthropic's error.details.error_code). */
export function refusalCode(route: string, body: string): string | undefined {
  const e = (JSON.parse(body) as { error: { code?: string; details?: { error_code?: string } } }).error;
  return route === '/v1/messages' ? e.details?.error_code : e.code;
}

export const idOf = (e: Exchange): string => {
  if (e.request?.stream !== true) return (JSON.parse(e.response!) as { id: string }).id;
  const first = JSON.parse(parseSse(e.response!)[0]!.data) as {
    id?: string;
    response?: { id: string };
    message?: { id: string };
  };
  return first.id ?? first.response?.id ?? first.message!.id;
};

/** Every tool call an agent received, validated (Ajv) against the JSON schema its request sent for that tool. */
export function toolCallCheck(route: string, wire: Exchange[]): { checked: number; problems: string[] } {
  const ajv = new Ajv({ strict: false, allErrors: true });
  const problems: string[] = [];
  let checked = 0;
  let schemas = new Map<string, Record<string, unknown>>();
  for (const e of wire.filter((x) => x.url && x.status === 200)) {
    // An Anthropic Thread's later turns leave the tools out: they are the first turn's.
    if (e.request!.tools !== undefined || !e.request!.thread) schemas = offered(route, e.request!);
    if ([...schemas.keys()].sort().join() !== 'execute_code,search')
      problems.push(`offered ${[...schemas.keys()].join()}`);
    for (const call of answerOf(route, e)!.message.tool_calls ?? []) {
      const { $schema: _dialect, ...schema } = schemas.get(call.function.name) ?? {};
      if (!ajv.validate(schema, JSON.parse(call.function.arguments)))
        problems.push(`${call.function.name} ${call.function.arguments}: ${ajv.errorsText()}`);
      checked++;
    }
  }
  return { checked, problems };
}
