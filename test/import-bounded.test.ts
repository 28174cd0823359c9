// `bench import` against hostile and broken input (issue #32, part 3): the import streams, a symlink
// loop is one line, impossible trajectories are said per file, and a file that is not JSON has
// nothing of it quoted. The 1M-step file is `bench perf --only import`, not a test.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { RunRecord, StepRecord } from '../src/contracts/records.ts';
import { benchInProcess } from './helpers/cli.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-import-bounded-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const jsonl = <T>(file: string): T[] =>
  fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as T);

/** An ATIF trajectory of `n` agent steps, one second apart, each re-sending the history. */
function trajectory(
  id: string,
  n: number,
  edit: (steps: Array<Record<string, unknown>>) => void = () => {},
  extra: Record<string, unknown> = {},
) {
  const t0 = Date.parse('2026-03-01T10:00:00Z');
  const steps: Array<Record<string, unknown>> = [
    { step_id: 1, timestamp: new Date(t0).toISOString(), source: 'user', message: 'goal' },
  ];
  for (let k = 1; k <= n; k++)
    steps.push({
      step_id: k + 1,
      timestamp: new Date(t0 + k * 1000).toISOString(),
      source: 'agent',
      message: k === n ? 'done' : '',
      ...(k < n
        ? { tool_calls: [{ tool_call_id: `c${k}`, function_name: 'search', arguments: { q: `page ${k}` } }] }
        : {}),
      metrics: { prompt_tokens: 100 * k, completion_tokens: 10, cost_usd: 0.001 },
    });
  edit(steps);
  return {
    schema_version: 'ATIF-v1.6',
    session_id: id,
    agent: { name: 'hostile', model_name: 'gpt-4o-mini' },
    steps,
    ...extra,
  };
}

describe('bench import: hostile folders and impossible trajectories', () => {
  const dir = path.join(tmp, 'in');
  const out = path.join(tmp, 'out');
  const secret = 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ';
  let r: { code: number; stdout: string; stderr: string };

  it('imports the rest around a symlink loop, time going backwards, repeated step ids, wrong totals and a file that is not JSON', async () => {
    fs.mkdirSync(path.join(dir, 'sub'), { recursive: true });
    const write = (name: string, v: unknown) => fs.writeFileSync(path.join(dir, name), JSON.stringify(v));
    write('good.json', trajectory('good', 3));
    // Ten years back at step 3: the run's clock must not go negative.
    write(
      'backwards.json',
      trajectory('backwards', 4, (s) => void (s[3]!.timestamp = '2016-03-01T10:00:00Z')),
    );
    write(
      'dup-ids.json',
      trajectory('dup-ids', 3, (s) => void (s[3]!.step_id = 3)),
    );
    write(
      'totals.json',
      trajectory('totals', 3, () => {}, {
        final_metrics: { total_prompt_tokens: 999, total_completion_tokens: 30, total_cost_usd: 0.5, total_steps: 4 },
      }),
    );
    fs.writeFileSync(
      path.join(dir, 'id_ed25519.json'),
      `-----BEGIN OPENSSH PRIVATE KEY-----\n${secret}\n-----END OPENSSH PRIVATE KEY-----\n`,
    );
    fs.symlinkSync('loop-b.json', path.join(dir, 'loop-a.json'));
    fs.symlinkSync('loop-a.json', path.join(dir, 'loop-b.json'));
    // A link back up the tree: searched once, not forever.
    fs.symlinkSync('..', path.join(dir, 'sub', 'up'));
    r = await benchInProcess(['import', dir, '-o', out]);
    // Files skipped: the rest is written, and the exit code says the import is incomplete.
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toMatch(/imported 4 run\(s\)/);
    expect(r.stderr).toMatch(/the import is incomplete: 4 part\(s\) of the input were skipped/);
    const runs = jsonl<RunRecord>(path.join(out, 'runs.jsonl'));
    expect(runs.map((x) => x.run_id).sort()).toEqual([
      'hostile_backwards',
      'hostile_dup-ids',
      'hostile_good',
      'hostile_totals',
    ]);
  });

  it('a symlink loop is one line for that path', () => {
    const lines = r.stderr.split('\n');
    expect(lines.filter((l) => l.includes('loop-a.json'))).toEqual([
      `bench: skipped ${path.join(dir, 'loop-a.json')}: a symlink loop (ELOOP): skipped`,
    ]);
    expect(lines.filter((l) => l.includes('loop-b.json'))).toHaveLength(1);
    expect(lines.filter((l) => l.includes(path.join('sub', 'up')))).toEqual([
      `bench: skipped ${path.join(dir, 'sub', 'up')}: a symlink back to a folder already searched (a loop): skipped`,
    ]);
  });

  it('time going backwards is said for its file, and no elapsed time or latency is negative', () => {
    const line = r.stderr.split('\n').filter((l) => l.includes('backwards.json'));
    expect(line).toHaveLength(1);
    expect(line[0]).toMatch(/timestamps go backwards once \(first at step_id 4, by up to 315,5\d\d,\d\d\d s\)/);
    const steps = jsonl<StepRecord>(path.join(out, 'steps.jsonl')).filter((s) => s.run_id === 'hostile_backwards');
    expect(steps.map((s) => s.elapsed_ms)).toEqual([1000, 2000, 2000, 4000]);
    expect(steps.every((s) => s.latency_ms >= 0)).toBe(true);
    expect(
      jsonl<RunRecord>(path.join(out, 'runs.jsonl')).find((x) => x.run_id === 'hostile_backwards')!.elapsed_ms,
    ).toBe(4000);
  });

  it('repeated step ids and totals that disagree with the steps are said for their files', () => {
    expect(r.stderr).toMatch(/dup-ids\.json: step ids repeat or go back once \(step_id 3 follows step_id 3\)/);
    const totals = r.stderr.split('\n').filter((l) => l.includes('totals.json'));
    expect(totals).toHaveLength(1);
    expect(totals[0]).toContain(
      "final_metrics disagree with the steps (total_prompt_tokens 999 against 600; total_cost_usd 0.5 against 0.003): the steps' figures are recorded",
    );
    // The files without a problem have no line.
    expect(r.stderr).not.toMatch(/good\.json/);
  });

  it('a file that is not JSON is skipped with where it stopped parsing, and nothing of it is quoted', () => {
    const line = r.stderr.split('\n').filter((l) => l.includes('id_ed25519.json'));
    expect(line).toEqual([
      `bench: skipped ${path.join(dir, 'id_ed25519.json')}: not JSON (byte 0: expected a JSON value)`,
    ]);
    expect(r.stderr).not.toContain(secret.slice(0, 8));
    expect(r.stderr).not.toContain('BEGIN');
  });
});

describe('bench import streams', () => {
  it('a trajectory of megabytes is parsed one step at a time: no single JSON.parse is given more than 64 KB', async () => {
    const file = path.join(tmp, 'long.json');
    // Long reasoning per step: a file of megabytes with few enough steps to keep the reports quick.
    fs.writeFileSync(
      file,
      JSON.stringify(
        trajectory('long', 2500, (steps) => steps.forEach((x) => (x.reasoning_content = 'thinking '.repeat(60)))),
      ),
    );
    expect(fs.statSync(file).size).toBeGreaterThan(1.5e6);
    const parse = vi.spyOn(JSON, 'parse');
    let r: Awaited<ReturnType<typeof benchInProcess>>;
    let sizes: number[];
    try {
      r = await benchInProcess(['import', file, '-o', path.join(tmp, 'long-out')]);
      sizes = parse.mock.calls.map(([text]) => String(text).length);
    } finally {
      parse.mockRestore();
    }
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/imported 1 run\(s\), 2500 agent step\(s\)/);
    // Every step was parsed on its own (and read back by the reports), none with the whole file.
    expect(sizes.length).toBeGreaterThan(2500);
    expect(Math.max(...sizes)).toBeLessThan(64 * 1024);
  });
});
