// bench perf's gateway rows: the same growing conversations straight to a stub upstream, through a
// trivial pass-through proxy and through the gateway (bench serve --upstream), all real child
// processes, in interleaved rounds. Sizes are tiny: this checks the measurement runs and is
// reported, not the figures (those are bench perf's job).
import { describe, expect, it } from 'vitest';
import { gatewayLatencyBench } from '../src/perf/gateway-latency.ts';
import { findPortkey } from '../src/perf/portkey.ts';
import { formatTargets, gatewayRows } from '../src/perf/table.ts';
import { patient } from './helpers/patient.ts';

describe('bench perf --only gateway', () => {
  it(
    'measures, per client count and history length, added latency and CPU per request against the proxy floor, round after round',
    async () => {
      const r = await gatewayLatencyBench({
        clients: [1, 3],
        requestsPerClient: 2,
        latencyMs: 50,
        histories: [1, 3],
        rounds: 2,
      });
      expect(r.errors).toBe(0);
      expect(r.loads.map((l) => `${l.round}/${l.clients}/${l.steps}`)).toEqual([
        '0/1/1',
        '0/1/3',
        '0/3/1',
        '0/3/3',
        '1/1/1',
        '1/1/3',
        '1/3/1',
        '1/3/3',
      ]);
      // Every request waited at least the upstream's latency, by every path.
      for (const l of r.loads) for (const p of [l.direct, l.proxy, l.gateway]) expect(p.p50).toBeGreaterThanOrEqual(50);
      // Longer histories are longer requests (a step is ~1.8 KB).
      expect(r.loads[1]!.requestBytes - r.loads[0]!.requestBytes).toBeGreaterThan(3000);
      // /proc is there on Linux: both servers spent some CPU per request.
      if (process.platform === 'linux') {
        for (const l of r.loads) expect([l.proxy.cpuMs, l.gateway.cpuMs].every((x) => x !== null && x > 0)).toBe(true);
        expect(r.loadAverage?.before).toMatch(/^[\d.]+ [\d.]+ [\d.]+$/);
      }
      expect(r.capacity.gateway).toBeGreaterThan(0);
      expect(r.capacity.proxy).toBeGreaterThan(0);
      // Portkey is measured where it is installed, and said to be skipped where not.
      const portkey = findPortkey();
      expect(r.portkey).toBe(portkey?.version ?? null);
      for (const l of r.loads) expect(l.portkey === null).toBe(portkey === null);
      const rows = gatewayRows(r);
      const ids = (prefix: string) =>
        [1, 2, 3, 4].map((i) => [`${prefix}.${i}`, prefix === '8' ? 2 : prefix === '9' ? 0.5 : 2]);
      expect(rows.map((x) => [x.target.split(' ')[0], x.limit])).toEqual([
        ...ids('8'),
        ...(portkey ? [5, 6, 7, 8].map((i) => [`8.${i}`, 1]) : []),
        ...ids('9'),
        ...ids('10'),
      ]);
      const table = formatTargets(rows);
      expect(table).toMatch(/8\.4 gateway: CPU per request ÷ pass-through proxy's \(3 clients, 3-step history\)/);
      expect(table).toMatch(/9\.1 gateway: added latency, median \(1 client, 1-step history\)/);
      expect(rows[0]!.detail).toContain(
        portkey ? `Portkey gateway ${portkey.version}` : 'Portkey (@portkey-ai/gateway) not installed: skipped.',
      );
      // Two rounds: each figure is given as min–median–max.
      expect(rows[0]!.detail).toMatch(/ratio [\d.]+×–[\d.]+×–[\d.]+×/);
    },
    patient(120_000),
  );
});
