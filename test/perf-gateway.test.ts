// bench perf's gateway rows: the same load straight to bench serve and through the gateway
// (bench serve --upstream), both real child processes. Sizes are tiny: this checks the measurement
// runs and is reported, not the figures (those are bench perf's job).
import { describe, expect, it } from 'vitest';
import { gatewayLatencyBench } from '../src/perf/gateway-latency.ts';
import { formatTargets, gatewayRows } from '../src/perf/table.ts';

describe('bench perf --only gateway', () => {
  it('measures direct and gateway latency percentiles and the requests/s the gateway sustains', async () => {
    const r = await gatewayLatencyBench({ agents: 4, requestsPerAgent: 2, latencyMs: 50 });
    expect(r.errors).toBe(0);
    // Every request waited at least the upstream's latency, through the gateway too.
    expect(r.direct.p50).toBeGreaterThanOrEqual(50);
    expect(r.gateway.p50).toBeGreaterThanOrEqual(50);
    expect(r.addedP50).toBeCloseTo(r.gateway.p50 - r.direct.p50, 9);
    expect(r.requestsPerSecond).toBeGreaterThan(0);
    const rows = gatewayRows(r);
    expect(rows.map((x) => [x.limit, x.at])).toEqual([
      [1, 'most'],
      [5, 'most'],
    ]);
    expect(formatTargets(rows)).toMatch(/8\. gateway: added latency per request, median \(4 agents at once\)/);
  }, 60_000);
});
