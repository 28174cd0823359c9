// --concurrency against a provider: at most N calls in flight across the sweep, more runs than N
// open, first come first served, and a run waiting for a slot stops cleanly on Ctrl-C.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readJsonl } from '../src/results/jsonl.ts';
import { CallSlots } from '../src/runner/call-slots.ts';
import type { UsageLine } from '../src/serve/server.ts';
import { sweepWith } from '../src/serve/sweep-against.ts';
import { envFor, serve } from './serve-helpers.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-slots-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Largest number of [start, end] intervals open at one instant. */
function maxOverlap(intervals: Array<[number, number]>): number {
  const events = intervals
    .flatMap(([a, b]) => [[a, 1] as const, [b, -1] as const])
    .sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  let open = 0;
  let max = 0;
  for (const [, d] of events) max = Math.max(max, (open += d));
  return max;
}

describe('CallSlots', () => {
  it('holds at most its size, hands freed slots out first come first served, and frees a slot only when nobody waits', async () => {
    const slots = new CallSlots(2);
    const order: string[] = [];
    expect(await slots.acquire()).toBe(true);
    expect(await slots.acquire()).toBe(true);
    expect(slots.held).toBe(2);
    const waiters = ['a', 'b', 'c'].map((name) => slots.acquire().then((ok) => order.push(`${name}:${ok}`)));
    await Promise.resolve();
    expect(order).toEqual([]);
    slots.release();
    await waiters[0];
    expect(order).toEqual(['a:true']);
    expect(slots.held).toBe(2);
    slots.release();
    slots.release();
    await Promise.all(waiters);
    expect(order).toEqual(['a:true', 'b:true', 'c:true']);
    slots.release();
    slots.release();
    slots.release();
    expect(slots.held).toBe(0);
  });

  it('an abort while waiting gives up the place in line without taking a slot', async () => {
    const slots = new CallSlots(1);
    await slots.acquire();
    const stop = new AbortController();
    const waiting = slots.acquire(stop.signal);
    const next = slots.acquire();
    stop.abort();
    expect(await waiting).toBe(false);
    slots.release();
    expect(await next).toBe(true);
    expect(slots.held).toBe(1);
    expect(await slots.acquire(stop.signal)).toBe(false);
  });
});

describe('--concurrency against bench serve', () => {
  it('keeps at most N requests in flight, all N busy, with more than N runs open', async () => {
    const logFile = path.join(tmp, 'usage.jsonl');
    const server = await serve({ latencyMs: 60, logFile });
    try {
      const r = await sweepWith(
        {
          model: 'openai:seed-calibrated',
          scenario: 'seed-calibrated',
          steps: '4',
          repeat: '9',
          concurrency: '3',
          timeout: 'off',
          maxCost: 'off',
        },
        { env: envFor(server), dir: path.join(tmp, 'sweep') },
      );
      expect(r.runs.map((x) => x.stop_reason)).toEqual(Array(9).fill('max_steps'));
      const lines = (await readJsonl<UsageLine>(logFile)).records;
      expect(lines).toHaveLength(36);
      // Trimmed by 1 ms at each end: the log has millisecond times and rounded latencies.
      const calls = lines.map((l): [number, number] => [Date.parse(l.time) - l.latency_ms + 1, Date.parse(l.time) - 1]);
      expect(maxOverlap(calls)).toBe(3);
      const runs = r.runs.map((x): [number, number] => [Date.parse(x.started_at), Date.parse(x.finished_at)]);
      expect(maxOverlap(runs)).toBeGreaterThan(3);
    } finally {
      await server.close();
    }
  });
});
