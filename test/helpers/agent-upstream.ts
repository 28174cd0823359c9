// A scripted provider on 127.0.0.1 for the coding-agent CLIs: Anthropic Messages (/v1/messages) and the
// Responses API (/v1/responses), streamed as the providers stream them (the SSE event sequence, usage
// with cache reads / writes and reasoning), answering each request with the script's next turn: a
// shell command for the client's own shell tool, a final text, or an API error. Every request body is
// kept, so a test can check what the client sent.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StepRecord } from '../../src/contracts/records.ts';
import type { LoggedUsage } from '../../src/trajectories/agent-logs/logged-call.ts';

/**
 * Usage as the test scripts it: the parts the importers read back (input billed at the plain rate, cache
 * reads, writes at each TTL — the Responses API has the 5-minute one only — output, and its reasoning part).
 */
export type ScriptedUsage = LoggedUsage;

export type Turn =
  | { kind: 'shell'; command: string; usage: ScriptedUsage }
  | { kind: 'text'; text: string; usage: ScriptedUsage }
  | { kind: 'error'; status: number; message: string };

export interface AgentUpstream {
  /** Base URL without /v1 (what ANTHROPIC_BASE_URL takes); `${url}/v1` for a Codex provider. */
  url: string;
  /** Every request as received (method, path, headers, body text), in order. */
  requests: Array<{ method: string; path: string; headers: http.IncomingHttpHeaders; body: string }>;
  /** Turns answered so far. */
  answered(): number;
  close(): Promise<void>;
}

/** The model the scripted answers name (the sessions record it; the LiteLLM table prices it). */
export const ANTHROPIC_MODEL = 'claude-sonnet-4-5';
export const RESPONSES_MODEL = 'gpt-4o';

/** Upstreams started in this process: each one's ids are its own, as a provider's are unique. */
let upstreams = 0;

const sse = (event: string, data: object) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

function anthropicStream(turn: Exclude<Turn, { kind: 'error' }>, n: number, instance: number): string {
  const u = turn.usage;
  const usage = {
    input_tokens: u.input,
    cache_creation_input_tokens: u.cacheWrite5m + u.cacheWrite1h,
    cache_read_input_tokens: u.cacheRead,
    cache_creation: { ephemeral_5m_input_tokens: u.cacheWrite5m, ephemeral_1h_input_tokens: u.cacheWrite1h },
    output_tokens: 1,
    service_tier: 'standard',
  };
  const id = `msg_scripted_${instance}_${n}`;
  const events = [
    sse('message_start', {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model: ANTHROPIC_MODEL,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage,
      },
    }),
  ];
  let index = 0;
  const block = (start: object, deltas: object[]) => {
    events.push(sse('content_block_start', { type: 'content_block_start', index, content_block: start }));
    for (const d of deltas) events.push(sse('content_block_delta', { type: 'content_block_delta', index, delta: d }));
    events.push(sse('content_block_stop', { type: 'content_block_stop', index }));
    index++;
  };
  block({ type: 'thinking', thinking: '', signature: '' }, [
    { type: 'thinking_delta', thinking: `Step ${n}: I will use the shell.` },
    { type: 'signature_delta', signature: Buffer.from(`scripted-signature-${n}`).toString('base64') },
  ]);
  if (turn.kind === 'text') block({ type: 'text', text: '' }, [{ type: 'text_delta', text: turn.text }]);
  else {
    block({ type: 'text', text: '' }, [{ type: 'text_delta', text: 'Running it.' }]);
    block({ type: 'tool_use', id: `toolu_scripted_${n}`, name: 'Bash', input: {} }, [
      {
        type: 'input_json_delta',
        partial_json: JSON.stringify({ command: turn.command, description: `Check the result, attempt ${n}` }),
      },
    ]);
  }
  events.push(
    sse('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: turn.kind === 'text' ? 'end_turn' : 'tool_use', stop_sequence: null },
      usage: { ...usage, output_tokens: u.output },
    }),
  );
  events.push(sse('message_stop', { type: 'message_stop' }));
  return events.join('');
}

function responsesStream(turn: Exclude<Turn, { kind: 'error' }>, n: number, instance: number): string {
  const u = turn.usage;
  const base = {
    id: `resp_scripted_${instance}_${n}`,
    object: 'response',
    created_at: 1_700_000_000 + n,
    model: RESPONSES_MODEL,
    output: [] as object[],
    usage: null as object | null,
  };
  const events: string[] = [];
  let seq = 0;
  const ev = (data: Record<string, unknown>) =>
    events.push(sse(data.type as string, { ...data, sequence_number: seq++ }));
  ev({ type: 'response.created', response: { ...base, status: 'in_progress' } });
  const output: object[] = [];
  const item = (
    done: Record<string, unknown>,
    added: Record<string, unknown>,
    deltas: Array<Record<string, unknown>>,
  ) => {
    const output_index = output.length;
    ev({ type: 'response.output_item.added', output_index, item: added });
    for (const d of deltas) ev({ ...d, output_index, item_id: done.id });
    ev({ type: 'response.output_item.done', output_index, item: done });
    output.push(done);
  };
  const reasoning = {
    type: 'reasoning',
    id: `rs_scripted_${n}`,
    summary: [],
    encrypted_content: Buffer.from(`scripted-reasoning-${n}`).toString('base64'),
  };
  item(reasoning, { ...reasoning, encrypted_content: null }, []);
  if (turn.kind === 'text') {
    const done = {
      type: 'message',
      id: `msg_scripted_${n}`,
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: turn.text, annotations: [] }],
    };
    item(done, { ...done, status: 'in_progress', content: [] }, [
      {
        type: 'response.content_part.added',
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [] },
      },
      { type: 'response.output_text.delta', content_index: 0, delta: turn.text },
      { type: 'response.output_text.done', content_index: 0, text: turn.text },
      {
        type: 'response.content_part.done',
        content_index: 0,
        part: { type: 'output_text', text: turn.text, annotations: [] },
      },
    ]);
  } else {
    const args = JSON.stringify({ cmd: turn.command });
    const done = {
      type: 'function_call',
      id: `fc_scripted_${n}`,
      call_id: `call_scripted_${n}`,
      name: 'exec_command',
      arguments: args,
      status: 'completed',
    };
    item(done, { ...done, arguments: '', status: 'in_progress' }, [
      { type: 'response.function_call_arguments.delta', delta: args },
      { type: 'response.function_call_arguments.done', arguments: args },
    ]);
  }
  const input = u.input + u.cacheRead + u.cacheWrite5m;
  ev({
    type: 'response.completed',
    response: {
      ...base,
      status: 'completed',
      output,
      usage: {
        input_tokens: input,
        input_tokens_details: { cached_tokens: u.cacheRead },
        output_tokens: u.output,
        output_tokens_details: { reasoning_tokens: u.reasoning },
        total_tokens: input + u.output,
      },
    },
  });
  return events.join('');
}

function errorBody(path: string, turn: Extract<Turn, { kind: 'error' }>): string {
  return JSON.stringify(
    path.startsWith('/v1/messages')
      ? { type: 'error', error: { type: 'invalid_request_error', message: turn.message } }
      : { error: { type: 'invalid_request_error', code: 'invalid_request', message: turn.message, param: null } },
  );
}

/** Serves `script` in order to whichever protocol asks; a request past its end is a 500 the test sees in `requests`. */
export async function agentUpstream(script: readonly Turn[]): Promise<AgentUpstream> {
  const requests: AgentUpstream['requests'] = [];
  const instance = ++upstreams;
  let next = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      requests.push({
        method: req.method ?? '',
        path,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const modelCall = req.method === 'POST' && (path.startsWith('/v1/messages') || path.startsWith('/v1/responses'));
      if (!modelCall) return void res.writeHead(req.method === 'HEAD' ? 200 : 404).end();
      const turn = script[next];
      if (!turn)
        return void res.writeHead(500, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            error: {
              type: 'api_error',
              message: `the script has ${script.length} turns; this is request ${next + 1}`,
            },
          }),
        );
      next++;
      if (turn.kind === 'error')
        return void res.writeHead(turn.status, { 'content-type': 'application/json' }).end(errorBody(path, turn));
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.end(
        path.startsWith('/v1/messages') ? anthropicStream(turn, next, instance) : responsesStream(turn, next, instance),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    answered: () => next,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

/** Distinct usage per turn (so a miscount shows): turn i of a session scripted from `seed`. */
export function usageFor(seed: number, i: number): ScriptedUsage {
  const k = seed * 100 + i;
  return {
    input: 50 + k,
    cacheRead: i === 0 ? 0 : 1000 + 10 * k,
    cacheWrite5m: 200 + k,
    cacheWrite1h: i % 2 ? 30 + k : 0,
    output: 40 + 2 * k,
    reasoning: 10 + k,
  };
}

/** What each protocol reports of a scripted usage, as the gateway records it. */
export const gatewayRecorded = {
  // Messages: input, cache reads and writes are apart; the gateway's input holds them all. No reasoning count.
  anthropic: (u: ScriptedUsage) => ({
    input_tokens: u.input + u.cacheRead + u.cacheWrite5m + u.cacheWrite1h,
    cached_tokens: u.cacheRead,
    cache_write_tokens: u.cacheWrite5m + u.cacheWrite1h,
    cache_write_1h_tokens: u.cacheWrite1h || undefined,
    output_tokens: u.output,
    reasoning_tokens: undefined,
  }),
  // Responses: input holds the cache reads (and the scripted writes, which it does not report apart); reasoning within output.
  openai: (u: ScriptedUsage) => ({
    input_tokens: u.input + u.cacheRead + u.cacheWrite5m,
    cached_tokens: u.cacheRead,
    cache_write_tokens: undefined,
    cache_write_1h_tokens: undefined,
    output_tokens: u.output,
    reasoning_tokens: u.reasoning,
  }),
};

/** A step's usage, in the fields gatewayRecorded gives. */
export const stepUsage = (s: StepRecord) => ({
  input_tokens: s.input_tokens,
  cached_tokens: s.cached_tokens,
  cache_write_tokens: s.cache_write_tokens,
  cache_write_1h_tokens: s.cache_write_1h_tokens,
  output_tokens: s.output_tokens,
  reasoning_tokens: s.reasoning_tokens,
});
