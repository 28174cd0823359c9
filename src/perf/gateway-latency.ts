// The gateway's cost to an agent: the same requests, 64 agents at once, straight to `bench serve
// --latency L` and through `bench serve --upstream` (the gateway, each agent its own run) in front of
// it; both servers in their own processes, as users run them. Added latency = the gateway's
// percentile minus the direct one. Then what the gateway sustains: the same load against an
// upstream that answers at once.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnServe } from '../serve/spawn.ts';

export interface GatewayLatencyOptions {
  agents: number;
  requestsPerAgent: number;
  latencyMs: number;
}

export interface GatewayLatencyResult extends GatewayLatencyOptions {
  direct: { p50: number; p99: number };
  gateway: { p50: number; p99: number };
  addedP50: number;
  addedP99: number;
  /** Requests per second through the gateway in front of an upstream with no latency. */
  requestsPerSecond: number;
  errors: number;
}

export const GATEWAY_TARGET: GatewayLatencyOptions = { agents: 64, requestsPerAgent: 10, latencyMs: 200 };

const body = (i: number) =>
  JSON.stringify({
    model: 'seed-calibrated',
    seed: i,
    messages: [
      { role: 'system', content: 'You are a research agent.' },
      { role: 'user', content: 'Collect sources on what agent loops cost.' },
    ],
    tools: [{ type: 'function', function: { name: 'search', parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } } }],
  });

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] ?? NaN;
};

/** Each agent sends its requests one after another; all agents at once. Returns each request's latency in ms. */
async function load(url: string, o: GatewayLatencyOptions, named: boolean): Promise<{ latencies: number[]; errors: number; ms: number }> {
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: o.agents }, async (_, agent) => {
      for (let i = 0; i < o.requestsPerAgent; i++) {
        const t = performance.now();
        const res = await fetch(`${url}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer perf', ...(named ? { 'x-loopbench-run': `perf-${agent}` } : {}) },
          body: body(agent),
        });
        await res.text();
        if (!res.ok) errors++;
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { latencies, errors, ms: performance.now() - started };
}

export async function gatewayLatencyBench(o: GatewayLatencyOptions = GATEWAY_TARGET): Promise<GatewayLatencyResult> {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-perf-gateway-'));
  const env = { ...process.env, OPENAI_API_KEY: 'bench-serve-needs-no-key' };
  const open = ['--steps', 'off', '--max-cost', 'off', '--timeout', 'off', '--max-repeat', 'off'];
  const slow = await spawnServe(['--latency', String(o.latencyMs)]);
  const fast = await spawnServe([]);
  const gateway = await spawnServe(['--upstream', slow.url, '--out', path.join(out, 'slow'), ...open], env);
  const gatewayFast = await spawnServe(['--upstream', fast.url, '--out', path.join(out, 'fast'), ...open], env);
  try {
    await load(gateway.url, { ...o, requestsPerAgent: 1 }, true); // warm-up: connections, tokenizer
    const direct = await load(slow.url, o, false);
    const through = await load(gateway.url, o, true);
    const capacity = await load(gatewayFast.url, { ...o, requestsPerAgent: o.requestsPerAgent * 3 }, true);
    const d = { p50: quantile(direct.latencies, 0.5), p99: quantile(direct.latencies, 0.99) };
    const g = { p50: quantile(through.latencies, 0.5), p99: quantile(through.latencies, 0.99) };
    return {
      ...o,
      direct: d,
      gateway: g,
      addedP50: g.p50 - d.p50,
      addedP99: g.p99 - d.p99,
      requestsPerSecond: capacity.latencies.length / (capacity.ms / 1000),
      errors: direct.errors + through.errors + capacity.errors,
    };
  } finally {
    await Promise.all([gateway.close(), gatewayFast.close()]);
    await Promise.all([slow.close(), fast.close()]);
    fs.rmSync(out, { recursive: true, force: true });
  }
}
