// --concurrency against a provider: at most N calls in flight across the sweep, more runs than N
// open, first come first served, and a run waiting for a slot stops cleanly on Ctrl-C.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CallSlots } from '../src/runner/call-slots.ts';
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

/**
 * A pass-through in front of the server that counts the requests open at once and holds each until N are
 * open (or a straggler has waited 300 ms: the sweep's last runs cannot fill N). Counting at the gate, not
 * from logged times, makes "at most N, all N busy" independent of how loaded the machine is.
 */
async function countingGate(target: string, n: number) {
  let open = 0;
  let most = 0;
  let waiting: Array<() => void> = [];
  const releaseAll = () => {
    for (const go of waiting) go();
    waiting = [];
  };
  const server = http.createServer((req, res) => {
    open++;
    most = Math.max(most, open);
    res.on('close', () => open--);
    const forward = () =>
      req.pipe(
        http.request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (up) => {
          res.writeHead(up.statusCode!, up.headers);
          up.pipe(res);
        }),
      );
    waiting.push(forward);
    if (open >= n) releaseAll();
    else setTimeout(releaseAll, 300);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    most: () => most,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('--concurrency against bench serve', () => {
  it('keeps at most N requests in flight, all N busy, with more than N runs open', async () => {
    const server = await serve({ latencyMs: 20 });
    const gate = await countingGate(server.url.replace(/\/v1$/, ''), 3);
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
        { env: { ...envFor(server), OPENAI_BASE_URL: gate.url }, dir: path.join(tmp, 'sweep') },
      );
      expect(r.runs.map((x) => x.stop_reason)).toEqual(Array(9).fill('max_steps'));
      expect(r.runs.reduce((n, x) => n + x.calls, 0)).toBe(36);
      // Never a fourth request at the gate; and the gate held requests until three were open, so all three were used.
      expect(gate.most()).toBe(3);
      const runs = r.runs.map((x): [number, number] => [Date.parse(x.started_at), Date.parse(x.finished_at)]);
      expect(maxOverlap(runs)).toBeGreaterThan(3);
    } finally {
      await gate.close();
      await server.close();
    }
  });
});
