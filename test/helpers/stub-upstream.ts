// An upstream the test scripts: each request is answered by the test's own handler (a lying usage,
// an endless stream, a slow answer), on 127.0.0.1, and every body it received is kept as bytes.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Settings } from '../../src/contracts/settings.ts';
import { SEED_LIMITS, type Limits } from '../../src/contracts/settings.ts';

export interface StubUpstream {
  url: string;
  /** Every request body received, as text, in order. */
  bodies: string[];
  close(): Promise<void>;
}

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

export async function stubUpstream(handle: Handler): Promise<StubUpstream> {
  const bodies: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      bodies.push(body);
      handle(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    bodies,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

export const TOOL_ANSWER = {
  role: 'assistant',
  content: null,
  tool_calls: [
    { id: 'call_1', type: 'function', function: { name: 'search', arguments: '{"query":"agent loop cost"}' } },
  ],
};

/** A chat completion with this usage (any shape: the point is what the gateway makes of it). */
export function completionWith(usage: unknown, message: object = TOOL_ANSWER): string {
  return JSON.stringify({
    id: 'chatcmpl-stub',
    object: 'chat.completion',
    created: 0,
    model: 'stub',
    choices: [{ index: 0, message, finish_reason: 'tool_calls' }],
    ...(usage === undefined ? {} : { usage }),
  });
}

export function sendJson(res: http.ServerResponse, text: string): void {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export const PRICE = { model: 'gpt-4o-mini', input_per_1m: 0.15, cached_input_per_1m: 0.075, output_per_1m: 0.6 };

/** A gateway run's settings: every brake off unless given. */
export function gatewaySettings(limits: Partial<Limits> = {}, maxOutputTokens = 300): Settings {
  return {
    scenario: 'external',
    model: 'openai:stub',
    limits: { ...SEED_LIMITS, max_steps: null, timeout_s: null, max_cost_usd: null, max_repeat: null, ...limits },
    reflection: 'off',
    max_reflections: 1,
    context: 'full',
    price: PRICE,
    prompt_cache: false,
    max_output_tokens: maxOutputTokens,
    seed: 1,
    repeat: 0,
    agent: {},
  };
}

/** POSTs a body (text, exactly as given) to a gateway's chat completions route. */
export async function postRaw(
  gatewayUrl: string,
  body: string,
  headers: Record<string, string | string[]>,
): Promise<{
  status: number;
  json: { error?: { message: string; code: string | null; type: string } } & Record<string, unknown>;
  text: string;
}> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${gatewayUrl}/chat/completions`, { method: 'POST' }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => {
        let json = {};
        try {
          json = JSON.parse(text) as object;
        } catch {
          // A stream: the text is what counts.
        }
        resolve({ status: res.statusCode ?? 0, json, text });
      });
    });
    req.setHeader('content-type', 'application/json');
    for (const [k, v] of Object.entries(headers)) req.setHeader(k, v);
    req.on('error', reject);
    req.end(body);
  });
}
