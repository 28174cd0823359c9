// Forwarding one chat-completions request to an OpenAI-compatible upstream and reading back what
// the gateway needs to meter it: the answer's tool calls and the provider's usage. A streamed
// answer is read whole before any of it is passed on, so an answer the spin brake withholds never
// reaches the agent, not even in part.
import http from 'node:http';
import https from 'node:https';
import type { AssistantMessage, ToolCall, Usage } from '../contracts/chat.ts';
import { redact } from '../models/redact.ts';

export interface Upstream {
  /** Base URL, e.g. http://127.0.0.1:8787/v1 or https://api.openai.com/v1. */
  url: string;
  /** Sent as the bearer token; never logged, recorded or passed to the agent. */
  apiKey?: string;
  /** Replaces the model the agent names (the run's model). */
  model?: string;
  /** Sent as `seed` when the agent sends none (the sim's answers follow the run's seed). */
  seed?: number;
  timeoutMs: number;
}

export type Forwarded =
  /** `usage` is null when the upstream sent none (the gateway then counts the tokens itself). */
  | { ok: true; usage: Usage | null; message: AssistantMessage; body: string; stream: boolean; events: string[] }
  | { ok: false; status: number; body: string; error: string };

interface WireUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
}

const usageOf = (u: WireUsage | null | undefined): Usage | null =>
  u && typeof u.prompt_tokens === 'number'
    ? { prompt_tokens: u.prompt_tokens, completion_tokens: u.completion_tokens ?? 0, cached_tokens: u.prompt_tokens_details?.cached_tokens ?? 0 }
    : null;

interface StreamDelta {
  content?: string | null;
  tool_calls?: Array<{ index: number; id?: string; function?: { name?: string; arguments?: string } }>;
}

/** A streamed answer put together from its pieces. */
function assembleStream(events: string[]): { usage: Usage | null; message: AssistantMessage } {
  const calls = new Map<number, ToolCall>();
  let content = '';
  let usage: Usage | null = null;
  for (const e of events) {
    if (e === '[DONE]') continue;
    let chunk: { choices?: Array<{ delta?: StreamDelta }>; usage?: WireUsage | null };
    try {
      chunk = JSON.parse(e) as typeof chunk;
    } catch {
      continue;
    }
    usage = usageOf(chunk.usage) ?? usage;
    content += chunk.choices?.[0]?.delta?.content ?? '';
    for (const piece of chunk.choices?.[0]?.delta?.tool_calls ?? []) {
      const c = calls.get(piece.index) ?? { id: '', type: 'function' as const, function: { name: '', arguments: '' } };
      if (piece.id) c.id = piece.id;
      c.function.name += piece.function?.name ?? '';
      c.function.arguments += piece.function?.arguments ?? '';
      calls.set(piece.index, c);
    }
  }
  const toolCalls = [...calls.values()];
  return { usage, message: { role: 'assistant', content, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) } };
}

/** The data of each server-sent event, in order. */
function sseEvents(text: string): string[] {
  return text
    .split(/\r?\n\r?\n/)
    .map((block) =>
      block
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n'),
    )
    .filter((d) => d.length > 0);
}

// Kept-alive connections to the upstream, shared by every run: a proxy must not pay a handshake per call.
const AGENTS = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };

/** One POST over node:http(s): lighter per call than fetch, which matters at every proxied request. */
function post(url: URL, headers: Record<string, string>, payload: string, timeoutMs: number, signal: AbortSignal): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const lib = url.protocol === 'https:' ? https : http;
    const req = lib.request(url, { method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(payload) }, agent: AGENTS[url.protocol as 'http:' | 'https:'], signal }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 502, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
    req.on('error', reject);
    req.end(payload);
  });
}

export async function forward(up: Upstream, body: Record<string, unknown>, signal: AbortSignal): Promise<Forwarded> {
  const secrets = [up.apiKey];
  let res: { status: number; text: string };
  try {
    const url = new URL(`${up.url.replace(/\/+$/, '')}/chat/completions`);
    res = await post(url, { 'content-type': 'application/json', ...(up.apiKey ? { authorization: `Bearer ${up.apiKey}` } : {}) }, JSON.stringify(body), up.timeoutMs, signal);
  } catch (e) {
    return { ok: false, status: 502, body: '', error: redact(`upstream unreachable: ${(e as Error).message}`, secrets) };
  }
  const raw = res.text;
  const ok = res.status >= 200 && res.status < 300;
  const text = redact(raw, secrets);
  if (!ok) {
    let message = text.slice(0, 300);
    try {
      message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? message;
    } catch {
      // Not JSON: the text itself says what went wrong.
    }
    return { ok: false, status: res.status, body: text, error: `upstream ${res.status}: ${message}` };
  }
  if (body.stream === true) {
    const events = sseEvents(text);
    return { ok: true, stream: true, events, body: text, ...assembleStream(events) };
  }
  try {
    const json = JSON.parse(text) as { choices?: Array<{ message?: AssistantMessage }>; usage?: WireUsage };
    const message = json.choices?.[0]?.message ?? { role: 'assistant', content: null };
    return { ok: true, stream: false, events: [], body: text, usage: usageOf(json.usage), message };
  } catch (e) {
    return { ok: false, status: 502, body: '', error: `upstream answered with invalid JSON (${(e as Error).message})` };
  }
}
