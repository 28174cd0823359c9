// The critic and the summarizer are stateless like the act role: over HTTP (`bench serve`, the
// official SDK) they give the same verdicts, revisions, summaries and token counts as in process.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunRecord } from '../src/contracts/records.ts';
import type { RunningServer } from '../src/serve/server.ts';
import { sweepWith } from '../src/serve/sweep-against.ts';
import { envFor, serve } from './serve-helpers.ts';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

const view = (runs: RunRecord[]) =>
  [...runs]
    .sort((a, b) => a.run_id.localeCompare(b.run_id))
    .map((r) => [
      r.run_id,
      r.stop_reason,
      r.steps,
      r.calls,
      r.input_tokens,
      r.output_tokens,
      r.answer,
      r.success,
      r.extra?.reflection,
      r.extra?.context,
    ]);

describe('reflection and context strategies behind bench serve', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await serve();
  });
  afterAll(() => server.close());

  it('the same critiques, reopens and answers as in process', async () => {
    const flags = {
      scenario: 'reflection-reopens',
      reflection: 'final,every-step',
      repeat: '3',
      seed: '1',
      concurrency: '3',
    };
    const local = await sweepWith({ ...flags, model: 'sim' });
    const served = await sweepWith({ ...flags, model: 'openai:reflection-reopens' }, { env: envFor(server) });
    dirs.push(local.dir, served.dir);
    expect(local.steps.some((s) => s.role === 'reflect')).toBe(true);
    expect(local.runs.some((r) => (r.extra?.reflection as { reopens: number }).reopens > 0)).toBe(true);
    expect(view(served.runs)).toEqual(view(local.runs));
  }, 240_000); // run_python really runs: ~40 subprocesses

  it('the same summaries and windows as in process', async () => {
    const flags = {
      scenario: 'seed-calibrated',
      steps: '16',
      context: 'window:3,summarize:2500',
      repeat: '1',
      seed: '3',
      concurrency: '2',
    };
    const local = await sweepWith({ ...flags, model: 'sim' });
    const served = await sweepWith({ ...flags, model: 'openai:seed-calibrated' }, { env: envFor(server) });
    dirs.push(local.dir, served.dir);
    expect(local.steps.some((s) => s.role === 'summarize')).toBe(true);
    expect(view(served.runs)).toEqual(view(local.runs));
  });
});
