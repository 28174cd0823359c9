// Settings a run records are settings it applied, and inputs accepted are inputs that can work:
// a task queue cannot be swept over --context or --reflection (its loop has neither), and a sweep
// stopped by its spend cap resumes under a new cap.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunRecord } from '../src/contracts/records.ts';
import { benchInProcess } from './helpers/cli.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-applied-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('a task queue refuses the ReAct-only strategies at load', () => {
  it.each([
    [['-s', 'babyagi-converging', '--reflection', 'off,final'], '--reflection'],
    [['-s', 'babyagi-converging', '--context', 'window:3'], '--context'],
    [
      ['-s', 'seed-calibrated,babyagi-converging', '--context', 'full,summarize:4000', '--reflection', 'every-step'],
      '--reflection, --context',
    ],
  ])('%j', async (args, flags) => {
    const out = path.join(tmp, `refused-${flags.length}-${args.length}`);
    const r = await benchInProcess([...args, '-q', '-o', out]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      `bench: ${flags}: only for ReAct scenarios, and taskqueue scenario babyagi-converging is in this sweep (its loop has no context strategy or reflection; sweep it separately)`,
    );
    expect(fs.existsSync(out)).toBe(false);
  });

  it('still runs a task queue with the defaults spelled out', async () => {
    const r = await benchInProcess([
      '-s',
      'babyagi-converging',
      '--context',
      'full',
      '--reflection',
      'off',
      '-n',
      '1',
      '-q',
      '--no-transcripts',
      '-o',
      path.join(tmp, 'tq'),
    ]);
    expect(r.code, r.stderr).toBe(0);
  });
});

const records = (dir: string) =>
  fs
    .readFileSync(path.join(dir, 'runs.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as RunRecord)
    .map((r) => ({
      run_id: r.run_id,
      stop_reason: r.stop_reason,
      steps: r.steps,
      input_tokens: r.input_tokens,
      output_tokens: r.output_tokens,
      cost_usd: r.cost_usd,
    }))
    .sort((a, b) => a.run_id.localeCompare(b.run_id));
const meta = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8'));

describe('a sweep stopped by --ci-max-spend', () => {
  const sweep = [
    '-s',
    'seed-calibrated',
    '--steps',
    '5',
    '--repeat',
    '6',
    '--max-cost',
    '0.003',
    '-q',
    '--no-transcripts',
  ];

  it('resumes under a new cap, and ends with the records of an uncapped sweep', async () => {
    const capped = path.join(tmp, 'capped');
    const first = await benchInProcess([...sweep, '--ci-max-spend', '0.004', '-o', capped]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(
      `bench: run the rest under a new cap with: bench --resume ${capped} --ci-max-spend <usd>`,
    );
    expect(meta(capped)).toMatchObject({
      status: 'capped',
      runs_done: 1,
      spend: { cap_usd: 0.004, stopped: true, runs_skipped: 5 },
    });

    const refused = await benchInProcess(['--resume', capped, '-q']);
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim()).toBe(
      `bench: --resume ${capped}: the sweep was stopped by its spend cap ($0.0040, $0.0015 spent, 5 run(s) not started); resume it with a new --ci-max-spend <usd>, which caps what the resumed runs spend`,
    );

    const again = await benchInProcess(['--resume', capped, '--ci-max-spend', '0.004', '-q']);
    expect(again.code, again.stderr).toBe(0);
    expect(meta(capped)).toMatchObject({ status: 'capped', runs_done: 2, spend: { cap_usd: 0.004, runs_skipped: 4 } });

    const rest = await benchInProcess(['--resume', capped, '--ci-max-spend', '1', '-q']);
    expect(rest.code, rest.stderr).toBe(0);
    expect(meta(capped)).toMatchObject({ status: 'complete', runs_done: 6, spend: { cap_usd: 1, stopped: false } });

    const whole = path.join(tmp, 'whole');
    expect((await benchInProcess([...sweep, '-o', whole])).code).toBe(0);
    expect(records(capped)).toEqual(records(whole));
  });
});
