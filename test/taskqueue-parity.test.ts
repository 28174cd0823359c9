// The task queue's simulated roles are stateless: run in process and through the openai SDK against
// `bench serve`, the same sweep gives the same calls, tokens, queues and stop reasons.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunRecord } from '../src/contracts/records.ts';
import type { RunningServer } from '../src/serve/server.ts';
import { sweepWith, type SweepResult } from '../src/serve/sweep-against.ts';
import { envFor, serve } from './serve-helpers.ts';

const dirs: string[] = [];
let server: RunningServer;
beforeAll(async () => {
  server = await serve();
});
afterAll(async () => {
  await server.close();
  dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true }));
});

const view = (r: SweepResult) => ({
  runs: [...r.runs]
    .sort((a, b) => a.run_id.localeCompare(b.run_id))
    .map((x: RunRecord) => [
      x.run_id,
      x.stop_reason,
      x.stop_detail,
      x.calls,
      x.input_tokens,
      x.output_tokens,
      JSON.stringify(x.extra?.rounds),
      JSON.stringify(x.extra?.events),
    ]),
  steps: r.steps
    .map((s) => [s.run_id, s.call, s.round, s.role, s.input_tokens, s.output_tokens])
    .sort((a, b) => `${a[0]}:${String(a[1]).padStart(4)}`.localeCompare(`${b[0]}:${String(b[1]).padStart(4)}`)),
});

describe('task queue: in-process sim and bench serve agree', () => {
  it('babyagi-queue-explosion with a cap and dedup, 2 repeats', async () => {
    const flags = {
      scenario: 'babyagi-queue-explosion',
      maxRounds: '4',
      queueCap: '3',
      dedup: '0.8',
      repeat: '2',
      seed: '1',
      concurrency: '2',
    };
    const local = await sweepWith({ ...flags, model: 'sim' });
    const served = await sweepWith({ ...flags, model: 'openai:babyagi-queue-explosion' }, { env: envFor(server) });
    dirs.push(local.dir, served.dir);
    expect(local.runs).toHaveLength(2);
    expect(local.steps.some((s) => s.role === 'prioritize')).toBe(true);
    expect(view(served)).toEqual(view(local));
  });
});
