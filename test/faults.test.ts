// Provider faults, injected by `bench serve`: each ends in its documented behaviour and the sweep goes on.
//   429 (retry-after) → waited out and retried; the step records the retry.
//   500, connection reset, timeout → retried with backoff, then the run stops with `error` and detail.
//   empty choices, missing usage → no retry (the provider answered); the run stops with `error`.
//   invalid JSON tool arguments → an error observation the model reads; the run goes on.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Fault } from '../src/serve/faults.ts';
import type { ServeOptions } from '../src/serve/server.ts';
import { sweepWith } from '../src/serve/sweep-against.ts';
import { envFor, scripted, serve } from './serve-helpers.ts';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

async function sweepAgainst(serveOpts: Partial<ServeOptions>, flags: Record<string, string | boolean> = {}) {
  const server = await serve(serveOpts);
  try {
    const r = await sweepWith(
      {
        scenario: 'seed-calibrated',
        model: 'openai:seed-calibrated',
        steps: '3',
        repeat: '2',
        concurrency: '1',
        maxRetries: '1',
        ...flags,
      },
      { env: envFor(server) },
    );
    dirs.push(r.dir);
    return r;
  } finally {
    await server.close();
  }
}

const always = (fault: Fault): Partial<ServeOptions> => ({ errorRate: 1, faults: [fault] });

describe('faults that retry and then end the run with error', () => {
  it.each([
    ['500', /HTTP 500 from seed-calibrated: .*server had an error.* \(after 1 retry\)/],
    ['429', /HTTP 429 from seed-calibrated: .*Rate limit.* \(after 1 retry\)/],
    ['reset', /connection failed: .* \(after 1 retry\)/],
  ] as const)('%s', async (fault, detail) => {
    const r = await sweepAgainst({ ...always(fault), retryAfterS: 0 });
    expect(r.runs).toHaveLength(2);
    for (const run of r.runs) {
      expect(run.stop_reason).toBe('error');
      expect(run.stop_detail).toMatch(/^model call failed at step 1: /);
      expect(run.stop_detail).toMatch(detail);
    }
    expect(r.steps).toHaveLength(2);
    for (const s of r.steps) {
      expect(s.retries).toBe(1);
      expect(s.error).toMatch(detail);
      expect(s.input_tokens).toBe(0);
    }
  });

  it('timeout: --request-timeout bounds each attempt', async () => {
    const r = await sweepAgainst(always('timeout'), { requestTimeout: '0.2', repeat: '1' });
    expect(r.runs[0]!.stop_reason).toBe('error');
    expect(r.runs[0]!.stop_detail).toMatch(/request timed out after 0.2 s \(after 1 retry\)/);
    expect(r.steps[0]!.retries).toBe(1);
  });

  it('--max-retries 0: one attempt only', async () => {
    const r = await sweepAgainst(always('500'), { maxRetries: '0', repeat: '1' });
    expect(r.steps[0]!.retries).toBe(0);
    expect(r.runs[0]!.stop_detail).toMatch(/HTTP 500/);
    expect(r.runs[0]!.stop_detail).not.toMatch(/after/);
  });
});

describe('faults that recover', () => {
  it('429 honours retry-after, retries, and the run goes on; the step records the retry', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-429-'));
    dirs.push(dir);
    const logFile = path.join(dir, 'usage.jsonl');
    // First request: 429 with retry-after 1 s; every later request answers.
    const r = await sweepAgainst(
      { errorRate: 0.5, faults: ['429'], retryAfterS: 1, random: scripted([0], 1), logFile },
      { repeat: '1' },
    );
    expect(r.runs[0]!.stop_reason).toBe('max_steps');
    expect(r.steps.map((s) => s.retries)).toEqual([1, 0, 0]);
    expect(r.steps.every((s) => s.error === null)).toBe(true);
    const log = fs
      .readFileSync(logFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(log.map((l) => l.status)).toEqual([429, 200, 200, 200]);
    // The retry came no sooner than the server asked.
    expect(Date.parse(log[1].time) - Date.parse(log[0].time)).toBeGreaterThanOrEqual(950);
  });

  it('a 500 then an answer: retried with backoff, the run is unharmed', async () => {
    const r = await sweepAgainst({ errorRate: 0.5, faults: ['500'], random: scripted([null, 0], 1) }, { repeat: '1' });
    expect(r.runs[0]!.stop_reason).toBe('max_steps');
    expect(r.steps.map((s) => s.retries)).toEqual([0, 1, 0]);
  });
});

describe('answers that are not usable', () => {
  it.each([
    ['empty', /response has no choices/],
    ['no-usage', /response has no usage \(loopbench counts tokens only from the provider's usage field\)/],
  ] as const)('%s: not retried, the run stops with error', async (fault, detail) => {
    const r = await sweepAgainst(always(fault));
    expect(r.runs).toHaveLength(2);
    for (const run of r.runs) {
      expect(run.stop_reason).toBe('error');
      expect(run.stop_detail).toMatch(detail);
    }
    expect(r.steps.every((s) => s.retries === 0)).toBe(true);
  });

  it('bad-args: the tool call is answered with an error observation and the run goes on', async () => {
    const r = await sweepAgainst(always('bad-args'), { transcripts: true });
    for (const run of r.runs) expect(run.stop_reason).toBe('max_steps');
    expect(r.steps.every((s) => s.error === null && s.action === 'search')).toBe(true);
    const transcript = fs.readFileSync(path.join(r.dir, 'transcripts', `${r.runs[0]!.run_id}.json`), 'utf8');
    expect(transcript).toContain('search: arguments are not valid JSON');
  });
});

describe('a sweep through random faults', () => {
  it('finishes every run, each either normally or with error and detail', async () => {
    let x = 42;
    const random = () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const r = await sweepAgainst(
      { errorRate: 0.3, faults: ['500', 'empty', 'no-usage', 'bad-args'], random },
      { repeat: '6', steps: '4', concurrency: '3', maxRetries: '0' },
    );
    expect(r.runs).toHaveLength(6);
    const reasons = new Set(r.runs.map((x) => x.stop_reason));
    expect([...reasons].every((x) => x === 'max_steps' || x === 'error')).toBe(true);
    expect(reasons.has('error')).toBe(true);
    for (const run of r.runs.filter((x) => x.stop_reason === 'error'))
      expect(run.stop_detail).toMatch(/^model call failed at step \d: .+/);
    const meta = JSON.parse(fs.readFileSync(path.join(r.dir, 'meta.json'), 'utf8'));
    expect(meta).toMatchObject({ status: 'complete', runs_done: 6 });
  });
});
