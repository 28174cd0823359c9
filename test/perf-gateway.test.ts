// bench perf's gateway rows: the same growing conversations straight to a stub upstream, through a
// trivial pass-through proxy and through the gateway (bench serve --upstream), all real child
// processes. Sizes are tiny: this checks the measurement runs and is reported, not the figures
// (those are bench perf's job).
import { describe, expect, it } from 'vitest';
import { gatewayLatencyBench } from '../src/perf/gateway-latency.ts';
import { formatTargets, gatewayRows } from '../src/perf/table.ts';

describe('bench perf --only gateway', () => {
  it('measures, per history length, added latency and CPU per request against the proxy floor', async () => {
    const r = await gatewayLatencyBench({ agents: 4, requestsPerAgent: 2, latencyMs: 50, histories: [1, 3] });
    expect(r.errors).toBe(0);
    expect(r.loads.map((l) => l.steps)).toEqual([1, 3]);
    // Every request waited at least the upstream's latency, by every path.
    for (const l of r.loads) for (const p of [l.direct, l.proxy, l.gateway]) expect(p.p50).toBeGreaterThanOrEqual(50);
    // Longer histories are longer requests (a step is ~1.8 KB).
    expect(r.loads[1]!.requestBytes - r.loads[0]!.requestBytes).toBeGreaterThan(3000);
    // /proc is there on Linux: both servers spent some CPU per request.
    if (process.platform === 'linux')
      for (const l of r.loads) expect([l.proxyCpuMs, l.gatewayCpuMs].every((x) => x !== null && x > 0)).toBe(true);
    expect(r.capacity.gateway).toBeGreaterThan(0);
    expect(r.capacity.proxy).toBeGreaterThan(0);
    const rows = gatewayRows(r);
    expect(rows.map((x) => [x.target.split(' ')[0], x.limit, x.at])).toEqual([
      ['8.1', 2, 'most'],
      ['9.1', 0.5, 'most'],
      ['10.1', 2, 'most'],
      ['8.2', 2, 'most'],
      ['9.2', 0.5, 'most'],
      ['10.2', 2, 'most'],
    ]);
    expect(formatTargets(rows)).toMatch(
      /8\.2 gateway: CPU per request ÷ pass-through proxy's \(3-step history, 4 agents\)/,
    );
  }, 60_000);
});
