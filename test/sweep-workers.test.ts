// Simulated sweeps on worker threads: the same reports, byte for byte, as on one thread — through
// the bundled CLI (dist/sweep-worker.js) and in process under tsx (src/runner/workers/worker-entry.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { sharedRanks } from '../src/meter/tokens.ts';
import { runOptions, timeSweep } from '../src/perf/sweep.ts';
import { buildSweepSpec } from '../src/runner/plan.ts';
import { expandSweep } from '../src/runner/sweep.ts';
import { tsxBoot } from '../src/runner/workers/spawn.ts';
import { poolFor, WorkerPool } from '../src/runner/workers/worker-pool.ts';
import { bench, benchInProcess } from './helpers/cli.ts';
import { patient } from './helpers/patient.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-workers-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

// A ReAct scenario, one the spin brake stops, and a task-queue one; two step limits.
const SWEEP = [
  '-s',
  'seed-calibrated,autogpt-recursive-verification,babyagi-converging',
  '--steps',
  '10,20',
  '-n',
  '6',
  '-q',
];

/** Every report file, with the one line that says when the sweep ran masked. */
function reports(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.csv') || f === 'summary.md')) {
    out[f] = fs.readFileSync(path.join(dir, f), 'utf8').replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'TIME');
  }
  for (const f of fs.readdirSync(path.join(dir, 'transcripts')))
    out[`transcripts/${f}`] = fs.readFileSync(path.join(dir, 'transcripts', f), 'utf8');
  return out;
}

describe('worker threads', () => {
  it(
    'a sweep on 2 workers writes the same CSVs, summary.md and transcripts as on 1, bundled or under tsx',
    async () => {
      // The same results directory name under different parents: summary.md names it.
      const [one, two, tsx] = ['one', 'two', 'tsx'].map((d) => path.join(tmp, d, 'out'));
      const [a, b] = await Promise.all([
        bench([...SWEEP, '--workers', '1', '-o', one!]),
        bench([...SWEEP, '--workers', '2', '-o', two!]),
      ]);
      expect(a.stderr).toBe('');
      expect(b.stderr).toBe('');
      expect([a.code, b.code]).toEqual([0, 0]);
      const inProcess = await benchInProcess([...SWEEP, '--workers', '2', '-o', tsx!]);
      expect(inProcess.code).toBe(0);

      const reference = reports(one!);
      expect(Object.keys(reference)).toEqual(
        expect.arrayContaining([
          'steps.csv',
          'runs.csv',
          'summary.csv',
          'steps_by_index.csv',
          'summary.md',
          'taskqueue_rounds.csv',
        ]),
      );
      expect(Object.keys(reference).filter((f) => f.startsWith('transcripts/'))).toHaveLength(36);
      expect(reports(two!)).toEqual(reference);
      expect(reports(tsx!)).toEqual(reference);
    },
    patient(240_000),
  );

  it(
    '--workers 2 is this thread and one worker, both running runs: the first run here, the next 8 queued in the worker',
    async () => {
      const sent = vi.spyOn(WorkerPool.prototype, 'run');
      try {
        const sweep = await timeSweep({ scenario: 'seed-calibrated', steps: '10', repeat: '30' }, undefined, 2);
        expect(sweep.runs).toBe(30);
        expect(sweep.calls).toBe(300);
        expect(sent.mock.calls.length).toBeGreaterThanOrEqual(8);
        expect(sent.mock.calls.length).toBeLessThan(30);
        expect(sent.mock.calls.map(([plan]) => plan.runId)).not.toContain('seed-calibrated_steps=10_r000');
      } finally {
        sent.mockRestore();
      }
    },
    patient(60_000),
  );

  it(
    'a worker posts its runs back without transferring a buffer (a transfer detaches it, which slows the thread for good: line-bytes.ts)',
    async () => {
      // The worker's own entry, under tsx, with its parentPort's postMessage wrapped first: a
      // transfer list is reported in the message instead of being honoured.
      const prelude = `
      const { parentPort } = require('node:worker_threads');
      const post = parentPort.postMessage.bind(parentPort);
      parentPort.postMessage = (message, transfer) => {
        const list = Array.isArray(transfer) ? transfer : transfer?.transfer ?? [];
        return post(list.length > 0 ? { ...message, transferred: list.length } : message);
      };`;
      const boot = tsxBoot(new URL('../src/runner/workers/worker-entry.ts', import.meta.url), prelude);
      const worker = new Worker(boot, { eval: true, workerData: { ranks: sharedRanks(), transcripts: false } });
      try {
        const plans = expandSweep(
          buildSweepSpec(runOptions({ scenario: 'seed-calibrated', steps: '10', repeat: '2' })),
        );
        const replies: Array<{ type: string; steps?: Uint8Array; transferred?: number }> = [];
        await new Promise<void>((resolve, reject) => {
          worker.on('error', reject);
          worker.on('message', (m) => {
            replies.push(m);
            if (replies.length === plans.length) resolve();
          });
          plans.forEach((plan, id) => worker.postMessage({ type: 'run', id, plan }));
        });
        expect(replies.map((r) => r.type)).toEqual(['done', 'done']);
        expect(replies.map((r) => r.transferred)).toEqual([undefined, undefined]);
        // Each run's own lines (10 steps each), though the worker reuses one buffer for both.
        for (const r of replies) expect(Buffer.from(r.steps!).toString('utf8').trim().split('\n')).toHaveLength(10);
      } finally {
        await worker.terminate();
      }
    },
    patient(60_000),
  );

  it('runs only simulated and replayed runs on workers, and only for more than one thread', () => {
    const plans = [{}, {}, {}] as never[];
    const base = { plans, networked: false, traced: false, recording: false, transcripts: false };
    expect(poolFor({ ...base, workers: 1 })).toBeUndefined();
    expect(poolFor({ ...base, workers: 2, networked: true })).toBeUndefined();
    expect(poolFor({ ...base, workers: 2, traced: true })).toBeUndefined();
    expect(poolFor({ ...base, workers: 2, recording: true })).toBeUndefined();
    expect(poolFor({ ...base, workers: 4, plans: [{}] as never[] })).toBeUndefined(); // one run: this thread alone
    const pool = poolFor({ ...base, workers: 2 });
    expect(pool?.size).toBe(1); // this thread is the other one
    expect(poolFor({ ...base, workers: 8 })?.size).toBe(2); // no more workers than runs beyond this thread's first
    return pool!.close();
  });

  it('refuses a bad --workers value (exit 2, one line)', async () => {
    for (const [value, why] of [
      ['0', /^bench: --workers: 0 is below the minimum 1/],
      ['two', /^bench: --workers: /],
    ] as const) {
      const r = await benchInProcess(['--workers', value, '-q', '-o', path.join(tmp, 'bad')]);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr.trim()).toMatch(why);
    }
    expect(fs.existsSync(path.join(tmp, 'bad'))).toBe(false);
  });
});
