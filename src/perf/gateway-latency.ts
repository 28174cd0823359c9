// The gateway's cost to an agent, against the cheapest proxy there is. 1 agent alone and 64 at once,
// each a growing ReAct conversation (a step = the assistant's tool call + a 1,700-character tool
// result, as an agent sends it back), a fresh run each, at histories of 1, 30 and 100 steps. Each
// load goes three or four ways, in turn: straight to a stub upstream that answers after
// `latencyMs`; through a trivial Node pass-through proxy (the floor: bytes in, bytes out); through
// `bench serve --upstream` (the gateway, each agent its own run, every brake off); through the
// Portkey gateway when it is installed (portkey.ts). The whole set is repeated `rounds` times, so a
// busy minute on a shared machine weighs on every path alike. Every server runs in its own process,
// so the CPU each one spends per request is read from /proc, apart from the load's. Added latency
// = a path's percentile minus the direct one. Then what each sustains in front of an upstream that
// answers at once.
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../contracts/paths.ts';
import { spawnGateway, spawnServer, type SpawnedServer } from '../serve/spawn.ts';
import { findPortkey, portkeyHeaders, spawnPortkey } from './portkey.ts';
import { processCpuMs, processPeakRssMb } from './proc-cpu.ts';
import { quantile } from '../stats/quantile.ts';

export interface GatewayLatencyOptions {
  /** Agents sending at once, one load each (1: an agent alone; 64: a busy gateway). */
  clients: number[];
  requestsPerClient: number;
  latencyMs: number;
  /** Steps of history in each agent's first measured request (it grows by one step a request). */
  histories: number[];
  /** Times every load is repeated, the paths interleaved within each: the rows are medians over rounds. */
  rounds: number;
}

export interface Percentiles {
  p50: number;
  p99: number;
}

/** One path's load: its latency percentiles and its server's CPU per request, in ms (null without /proc). */
export interface PathLoad extends Percentiles {
  cpuMs: number | null;
}

export interface HistoryLoad {
  round: number;
  clients: number;
  steps: number;
  /** Bytes of a measured request at this history (the first one). */
  requestBytes: number;
  direct: Percentiles;
  proxy: PathLoad;
  gateway: PathLoad;
  /** The Portkey gateway on the same load, when installed. */
  portkey: PathLoad | null;
}

export interface GatewayLatencyResult extends GatewayLatencyOptions {
  loads: HistoryLoad[];
  /** The Portkey version measured beside the gateway, or null when it is not installed. */
  portkey: string | null;
  /** Requests per second in front of an upstream with no latency, at the longest history, with the most clients. */
  capacity: { steps: number; proxy: number; gateway: number; proxyCpuMs: number | null; gatewayCpuMs: number | null };
  /** The gateway's peak RSS over everything above (null without /proc). */
  gatewayPeakRssMb: number | null;
  /** /proc/loadavg's three figures before and after (null without /proc): the machine's load while it ran. */
  loadAverage: { before: string; after: string } | null;
  errors: number;
}

export const GATEWAY_TARGET: GatewayLatencyOptions = {
  clients: [1, 64],
  requestsPerClient: 10,
  latencyMs: 200,
  histories: [1, 30, 100],
  rounds: 3,
};

const TOOLS = JSON.stringify([
  {
    type: 'function',
    function: {
      name: 'search',
      description: 'Search the web.',
      parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    },
  },
]);
const WORDS =
  'agent loop token cost budget step limit tool result context window model answer source search verify complete round spin brake price'.split(
    ' ',
  );

/** A tool result of 1,700 characters of ordinary words, different for each agent and step. */
function toolResult(agent: number, step: number): string {
  let s = `Result ${step} for agent ${agent}:`;
  for (let i = 0; s.length < 1700; i++)
    s += ` ${WORDS[(agent * 7 + step * 13 + i * i) % WORDS.length]}${i % 11 === 0 ? '.' : ''}`;
  return s.slice(0, 1700);
}

/** One agent's conversation as the JSON text of its messages array's elements, grown a step at a time. */
class Conversation {
  private elements = `${JSON.stringify({ role: 'system', content: 'You are a research agent. Use the search tool.' })},${JSON.stringify({ role: 'user', content: 'Collect sources on what agent loops cost.' })}`;
  steps = 0;

  constructor(readonly agent: number) {}

  /** The assistant's answer as sent back (the answer object, serialised again as an SDK does) and its tool's result. */
  addStep(answer: { tool_calls?: Array<{ id: string }> } & Record<string, unknown>): void {
    const id = answer.tool_calls?.[0]?.id ?? 'call_perf';
    this.elements += `,${JSON.stringify(answer)},${JSON.stringify({ role: 'tool', tool_call_id: id, content: toolResult(this.agent, this.steps) })}`;
    this.steps++;
  }

  body(): string {
    return `{"model":"gpt-4o-mini","messages":[${this.elements}],"tools":${TOOLS}}`;
  }
}

const STUB_ANSWER = {
  role: 'assistant',
  content: null,
  tool_calls: [
    { id: 'call_perf', type: 'function', function: { name: 'search', arguments: '{"query":"what agent loops cost"}' } },
  ],
};

const percentiles = (xs: number[]): Percentiles => ({ p50: quantile(xs, 0.5), p99: quantile(xs, 0.99) });
const pathLoad = (l: Load): PathLoad => ({ ...percentiles(l.latencies), cpuMs: l.cpuMs });

function loadAverage(): string | null {
  try {
    return fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return null;
  }
}

function post(
  url: URL,
  body: string,
  runId: string,
  agent: http.Agent,
  extra: Record<string, string>,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          authorization: 'Bearer perf',
          'x-loopbench-run': runId,
          ...extra,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

interface Load {
  latencies: number[];
  errors: number;
  ms: number;
  cpuMs: number | null;
  requestBytes: number;
}

/**
 * Every agent opens its run with one request at `steps - 1` steps (not measured: a run's first call
 * counts its whole history), then sends `requests` more, a step longer each time. Agents start
 * spread over one upstream latency, as independent agents would be, not in lockstep.
 */
async function load(
  base: string,
  o: {
    agents: number;
    requests: number;
    steps: number;
    spreadMs: number;
    tag: string;
    pid?: number;
    headers?: Record<string, string>;
  },
): Promise<Load> {
  const url = new URL(`${base}/chat/completions`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: o.agents });
  const conversations = Array.from({ length: o.agents }, (_, a) => {
    const c = new Conversation(a);
    while (c.steps < o.steps - 1) c.addStep(STUB_ANSWER);
    return c;
  });
  const latencies: number[] = [];
  let errors = 0;
  let requestBytes = 0;
  const send = async (c: Conversation, measured: boolean) => {
    const body = c.body();
    if (measured && c.steps === o.steps && c.agent === 0) requestBytes = Buffer.byteLength(body);
    const t = performance.now();
    const res = await post(url, body, `perf-${o.tag}-${c.agent}`, agent, o.headers ?? {}).catch(() => ({
      status: 0,
      text: '',
    }));
    if (measured) latencies.push(performance.now() - t);
    if (res.status !== 200) {
      errors++;
      c.addStep(STUB_ANSWER);
    } else c.addStep((JSON.parse(res.text) as { choices: Array<{ message: typeof STUB_ANSWER }> }).choices[0]!.message);
  };
  await Promise.all(conversations.map((c) => send(c, false)));
  const cpu = o.pid === undefined ? null : processCpuMs(o.pid);
  const started = performance.now();
  await Promise.all(
    conversations.map(async (c) => {
      await new Promise((r) => setTimeout(r, (c.agent * o.spreadMs) / o.agents));
      for (let i = 0; i < o.requests; i++) await send(c, true);
    }),
  );
  const ms = performance.now() - started;
  const after = o.pid === undefined ? null : processCpuMs(o.pid);
  agent.destroy();
  const cpuMs = cpu === null || after === null ? null : (after - cpu) / latencies.length;
  return { latencies, errors, ms, cpuMs, requestBytes };
}

export async function gatewayLatencyBench(o: GatewayLatencyOptions = GATEWAY_TARGET): Promise<GatewayLatencyResult> {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-perf-gateway-'));
  const floor = path.join(ROOT, 'dist', 'perf-floor.js');
  const env = { ...process.env, OPENAI_API_KEY: 'bench-serve-needs-no-key' };
  const open = [
    '--steps',
    'off',
    '--max-cost',
    'off',
    '--timeout',
    'off',
    '--max-repeat',
    'off',
    '--max-output-tokens',
    '1024',
  ];
  const servers: SpawnedServer[] = [];
  const start = async (s: Promise<SpawnedServer>) => {
    const server = await s;
    servers.push(server);
    return server;
  };
  const before = loadAverage();
  try {
    const stub = await start(spawnServer(floor, ['stub']));
    const slow = stub.url.replace(/\/v1$/, `/lat/${o.latencyMs}/v1`);
    const fast = stub.url.replace(/\/v1$/, '/lat/0/v1');
    const proxy = await start(spawnServer(floor, ['proxy', stub.url]));
    const gateway = await start(spawnGateway(['--upstream', slow, '--out', path.join(out, 'slow'), ...open], env));
    const gatewayFast = await start(spawnGateway(['--upstream', fast, '--out', path.join(out, 'fast'), ...open], env));
    const portkeyInstall = findPortkey();
    const portkey = portkeyInstall ? await start(spawnPortkey(portkeyInstall)) : null;
    const viaPortkey = portkeyHeaders(slow);
    const proxied = (upstream: string) => new URL(new URL(upstream).pathname, proxy.url).href;
    const most = Math.max(...o.clients);
    // JIT warm-up: a long-running gateway is warm; its first requests should not be what is measured.
    // Three loads' worth per agent (1,984 requests in the full row): after the 256 it had before, the
    // first round's gateway still ran much of its code unoptimized, ~1.3× its CPU per request after 2,000.
    const warm = { agents: most, requests: 3 * o.requestsPerClient, steps: 3, spreadMs: 0, tag: 'warm-up' };
    for (const url of [proxied(fast), gateway.url, gatewayFast.url]) await load(url, warm);
    if (portkey) await load(`${portkey.url}`, { ...warm, headers: viaPortkey });
    let errors = 0;
    const loads: HistoryLoad[] = [];
    for (let round = 0; round < o.rounds; round++)
      for (const clients of o.clients)
        for (const steps of o.histories) {
          const each = { agents: clients, requests: o.requestsPerClient, steps, spreadMs: o.latencyMs };
          const tag = `${round}-${clients}-${steps}`;
          const direct = await load(slow, { ...each, tag: `direct-${tag}` });
          const viaProxy = await load(proxied(slow), { ...each, tag: `proxy-${tag}`, pid: proxy.pid });
          const viaGateway = await load(gateway.url, { ...each, tag: `gateway-${tag}`, pid: gateway.pid });
          const throughPortkey = portkey
            ? await load(portkey.url, { ...each, tag: `portkey-${tag}`, pid: portkey.pid, headers: viaPortkey })
            : null;
          errors += direct.errors + viaProxy.errors + viaGateway.errors + (throughPortkey?.errors ?? 0);
          loads.push({
            round,
            clients,
            steps,
            requestBytes: direct.requestBytes,
            direct: percentiles(direct.latencies),
            proxy: pathLoad(viaProxy),
            gateway: pathLoad(viaGateway),
            portkey: throughPortkey && pathLoad(throughPortkey),
          });
        }
    const longest = Math.max(...o.histories);
    const each = { agents: most, requests: o.requestsPerClient, steps: longest, spreadMs: 0 };
    const proxyFast = await load(proxied(fast), { ...each, tag: 'proxy-fast', pid: proxy.pid });
    const throughFast = await load(gatewayFast.url, { ...each, tag: 'gateway-fast', pid: gatewayFast.pid });
    errors += proxyFast.errors + throughFast.errors;
    const rps = (l: Load) => l.latencies.length / (l.ms / 1000);
    const after = loadAverage();
    return {
      ...o,
      loads,
      portkey: portkeyInstall?.version ?? null,
      capacity: {
        steps: longest,
        proxy: rps(proxyFast),
        gateway: rps(throughFast),
        proxyCpuMs: proxyFast.cpuMs,
        gatewayCpuMs: throughFast.cpuMs,
      },
      gatewayPeakRssMb: processPeakRssMb(gateway.pid),
      loadAverage: before !== null && after !== null ? { before, after } : null,
      errors,
    };
  } finally {
    await Promise.all(servers.map((s) => s.close()));
    fs.rmSync(out, { recursive: true, force: true });
  }
}
