// bench perf's gateway rows need two servers that do as little as a server can, each in its own
// process (dist/perf-floor.js), so their CPU is theirs alone:
//   stub  — the upstream: answers every chat completion with the same tool call after the latency
//           its URL names (`/lat/<ms>/v1`), reporting usage of about the body's bytes ÷ 4 tokens;
//   proxy — the floor: a trivial Node pass-through proxy (bytes in, bytes out, nothing parsed).
// Usage: node dist/perf-floor.js stub | proxy UPSTREAM_BASE_URL. Each prints its base URL on stdout.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const ANSWER_MESSAGE = {
  role: 'assistant',
  content: null,
  tool_calls: [
    { id: 'call_perf', type: 'function', function: { name: 'search', arguments: '{"query":"what agent loops cost"}' } },
  ],
};
const COMPLETION_TOKENS = 20;

function stub(): http.Server {
  return http.createServer((req, res) => {
    let bytes = 0;
    req.on('data', (c: Buffer) => (bytes += c.length));
    req.on('end', () => {
      const latency = Number(/^\/lat\/(\d+)\//.exec(req.url ?? '')?.[1] ?? 0);
      const prompt = Math.ceil(bytes / 4);
      const body = JSON.stringify({
        id: 'chatcmpl-perf',
        object: 'chat.completion',
        created: 0,
        model: 'perf-stub',
        choices: [{ index: 0, message: ANSWER_MESSAGE, finish_reason: 'tool_calls', logprobs: null }],
        usage: {
          prompt_tokens: prompt,
          completion_tokens: COMPLETION_TOKENS,
          total_tokens: prompt + COMPLETION_TOKENS,
          prompt_tokens_details: { cached_tokens: 0 },
        },
      });
      const send = () => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      };
      if (latency > 0) setTimeout(send, latency);
      else send();
    });
  });
}

function proxy(upstream: string): http.Server {
  const base = new URL(upstream);
  const agent = new http.Agent({ keepAlive: true });
  return http.createServer((req, res) => {
    const path = `${base.pathname.replace(/\/v1\/?$/, '')}${req.url ?? '/'}`;
    const out = http.request(
      {
        host: base.hostname,
        port: base.port,
        method: req.method,
        path,
        headers: { ...req.headers, host: base.host },
        agent,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
}

const [mode, upstream] = process.argv.slice(2);
const server = mode === 'stub' ? stub() : mode === 'proxy' && upstream ? proxy(upstream) : null;
if (!server) {
  console.error('usage: perf-floor.js stub | proxy UPSTREAM_BASE_URL');
  process.exit(2);
}
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`));
process.on('SIGTERM', () => process.exit(0));
