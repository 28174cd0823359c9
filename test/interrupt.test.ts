// Ctrl-C during a sweep, for real: a child `bench` process, real signals, real python in every
// step (the fixture sleeps 0.25 s per step, so there is time to interrupt). Then `bench --resume`
// must leave the directory as an uninterrupted sweep would have (records minus timestamps).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJsonl } from '../src/results/jsonl.ts';
import type { RunRecord, StepRecord } from '../src/contracts/records.ts';
import { benchInProcess, fixture, spawnBench, type Spawned } from './helpers/cli.ts';
import { patient } from './helpers/patient.ts';

const SWEEP = [
  '-s',
  fixture('slow-python.yaml'),
  '-m',
  `sim:${fixture('slow-python-profile.yaml')}`,
  '--steps',
  '5',
  '-n',
  '8',
  '-j',
  '2',
  '-q',
];

let tmp: string;
let reference: { runs: unknown[]; steps: unknown[] };

/** Records without the fields that depend on when they were written; sorted, since runs finish in any order. */
async function records(dir: string) {
  const runs = (await readJsonl<RunRecord>(path.join(dir, 'runs.jsonl'))).records.map(
    ({ started_at: _s, finished_at: _f, ...rest }) => rest,
  );
  const steps = (await readJsonl<StepRecord>(path.join(dir, 'steps.jsonl'))).records;
  runs.sort((a, b) => a.run_id.localeCompare(b.run_id));
  steps.sort((a, b) => a.run_id.localeCompare(b.run_id) || a.call - b.call);
  return { runs, steps };
}

/** Every line of a JSONL file is whole JSON. */
function wholeLines(file: string): unknown[] {
  const text = fs.readFileSync(file, 'utf8');
  expect(text.endsWith('\n') || text === '').toBe(true);
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

const meta = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8'));

/** Resolves once the sweep has finished at least one run, so the interrupt lands mid-sweep. */
async function oneRunFinished(dir: string, run: Spawned): Promise<void> {
  await expect
    .poll(() => fs.existsSync(path.join(dir, 'runs.jsonl')) && fs.statSync(path.join(dir, 'runs.jsonl')).size > 0, {
      timeout: patient(200_000),
      interval: 50,
    })
    .toBe(true);
  expect(run.child.exitCode).toBeNull();
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-interrupt-'));
  const ref = await benchInProcess([...SWEEP, '-o', path.join(tmp, 'reference')]);
  expect(ref.code).toBe(0);
  reference = await records(path.join(tmp, 'reference'));
  expect(reference.runs).toHaveLength(8);
}, 300_000);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

// Child processes under a loaded machine: generous limits (nothing here asserts a duration).
describe('interrupting a sweep', { timeout: patient(300_000) }, () => {
  it('SIGINT: records every run (unfinished ones as interrupted), writes the reports; --resume then equals an uninterrupted sweep', async () => {
    const dir = path.join(tmp, 'sigint');
    const run = spawnBench([...SWEEP, '-o', dir]);
    await oneRunFinished(dir, run);
    run.child.kill('SIGINT');
    const end = await run.done;

    expect(end.code).toBe(130);
    expect(end.stderr).toContain('bench: SIGINT: no new model calls; recording unfinished runs as interrupted');
    expect(end.stderr).toMatch(
      /bench: interrupted: \d of 8 runs finished, the others are recorded as interrupted; finish them with: bench --resume /,
    );
    expect(end.stderr).not.toMatch(/\n\s+at /);
    const m = meta(dir);
    expect(m.status).toBe('interrupted');
    expect(m.runs_done).toBeLessThan(8);

    const runs = wholeLines(path.join(dir, 'runs.jsonl')) as RunRecord[];
    wholeLines(path.join(dir, 'steps.jsonl'));
    // One record per planned run: the ones that never started are there too, with no model call.
    expect(runs.map((r) => r.run_id).sort()).toEqual(reference.runs.map((r) => (r as RunRecord).run_id));
    const interrupted = runs.filter((r) => r.stop_reason === 'interrupted');
    expect(interrupted.length).toBe(8 - m.runs_done);
    expect(runs.some((r) => r.stop_reason === 'done')).toBe(true);
    expect(interrupted.some((r) => r.calls === 0 && r.stop_detail === 'interrupted before the next model call')).toBe(
      true,
    );
    for (const f of ['runs.csv', 'steps.csv', 'summary.csv']) expect(fs.existsSync(path.join(dir, f))).toBe(true);
    expect(fs.readFileSync(path.join(dir, 'runs.csv'), 'utf8').trim().split('\n')).toHaveLength(9);
    expect(end.stdout).toMatch(/interrupted \d/);

    const resumed = await benchInProcess(['--resume', dir, '-q']);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain(`bench: resuming ${dir}: ${m.runs_done} runs finished, ${8 - m.runs_done} to run`);
    expect(meta(dir).status).toBe('complete');
    expect(meta(dir).resumed_at).toHaveLength(1);
    expect(await records(dir)).toEqual(reference);
  });

  it('SIGTERM stops gracefully too, with exit code 143', async () => {
    const dir = path.join(tmp, 'sigterm');
    const run = spawnBench([...SWEEP, '-o', dir]);
    await oneRunFinished(dir, run);
    run.child.kill('SIGTERM');
    const end = await run.done;
    expect(end.code).toBe(143);
    expect(end.stderr).toContain('bench: SIGTERM: no new model calls');
    expect(meta(dir).status).toBe('interrupted');
    expect((wholeLines(path.join(dir, 'runs.jsonl')) as RunRecord[]).length).toBe(8);
  });

  it('a second signal quits at once; a partial last line is skipped; --resume still equals an uninterrupted sweep', async () => {
    const dir = path.join(tmp, 'twice');
    const run = spawnBench([...SWEEP, '-o', dir]);
    await oneRunFinished(dir, run);
    // Two different signals back to back (the same one twice may be merged by the kernel); Node
    // may handle them in either order.
    run.child.kill('SIGINT');
    run.child.kill('SIGTERM');
    const end = await run.done;
    const first = /bench: (SIGINT|SIGTERM): no new model calls/.exec(end.stderr)?.[1];
    const second = first === 'SIGINT' ? 'SIGTERM' : 'SIGINT';
    expect(first).toBeDefined();
    expect(end.stderr).toContain(`bench: ${second} again: quitting at once`);
    expect(end.stderr).not.toContain('bench: interrupted:');
    expect(end.code).toBe(second === 'SIGTERM' ? 143 : 130);
    // Quitting at once still leaves a truthful status, not `running`.
    expect(meta(dir).status).toBe('interrupted');

    // What a crash mid-write would leave: a partial last line. Readers skip it and say so.
    fs.appendFileSync(path.join(dir, 'steps.jsonl'), '{"run_id":"slow-python_steps=5_r007","step":');
    const report = await benchInProcess(['report', dir]);
    expect(report.code).toBe(0);
    expect(report.stderr).toContain('bench: skipped 1 incomplete line(s) of steps.jsonl');

    const resumed = await benchInProcess(['--resume', dir, '-q']);
    expect(resumed.code).toBe(0);
    expect(meta(dir).status).toBe('complete');
    wholeLines(path.join(dir, 'steps.jsonl'));
    expect(await records(dir)).toEqual(reference);
  });
});

/** `bench` in its own process group, as a terminal starts it: a Ctrl-C reaches the whole group. */
function spawnGroup(args: string[]): Spawned & { interrupt(sig: NodeJS.Signals): void } {
  const run = spawnBench(args, process.env, { detached: true });
  return { ...run, interrupt: (sig) => process.kill(-run.child.pid!, sig) };
}

// A simulated sweep is pure CPU work; it must still turn the event loop often enough for a signal
// to stop it. Bounds are generous (a loaded machine); the sweep uninterrupted takes minutes.
describe('interrupting a large simulated sweep', { timeout: patient(300_000) }, () => {
  it('SIGINT to the process group: the records are final long before the 10,000 runs would be', async () => {
    const dir = path.join(tmp, 'large');
    const run = spawnGroup(['-s', 'seed-calibrated', '--steps', '30', '-n', '10000', '-j', '4', '-q', '-o', dir]);
    await oneRunFinished(dir, run);
    run.interrupt('SIGINT');
    const end = await run.done;

    expect(end.code).toBe(130);
    const m = meta(dir);
    expect(m.status).toBe('interrupted');
    // Stopped early, most runs never started (no wall-clock bound: a loaded machine is slow, not wrong).
    expect(m.runs_done).toBeLessThan(5000);
    const runs = wholeLines(path.join(dir, 'runs.jsonl')) as RunRecord[];
    expect(runs).toHaveLength(10_000);
    expect(runs.filter((r) => r.stop_reason === 'interrupted')).toHaveLength(10_000 - m.runs_done);
    wholeLines(path.join(dir, 'steps.jsonl'));
    expect(fs.existsSync(path.join(dir, 'summary.csv'))).toBe(true);
  });

  it('--resume after SIGTERM equals the same sweep uninterrupted', async () => {
    const sweep = ['-s', 'seed-calibrated', '--steps', '5', '-n', '300', '-j', '2', '-q'];
    const ref = await benchInProcess([...sweep, '-o', path.join(tmp, 'sim-reference')]);
    expect(ref.code).toBe(0);
    const dir = path.join(tmp, 'sim-resumed');
    const run = spawnGroup([...sweep, '-o', dir]);
    await oneRunFinished(dir, run);
    run.interrupt('SIGTERM');
    expect((await run.done).code).toBe(143);
    expect(meta(dir).status).toBe('interrupted');
    expect(meta(dir).runs_done).toBeLessThan(300);
    expect((await benchInProcess(['--resume', dir, '-q'])).code).toBe(0);
    expect(meta(dir).status).toBe('complete');
    expect(await records(dir)).toEqual(await records(path.join(tmp, 'sim-reference')));
  });

  it('bench check: SIGINT stops the sweep, writes the reports and judges nothing (exit 130)', async () => {
    const budgets = path.join(tmp, 'budgets.yaml');
    fs.writeFileSync(
      budgets,
      'model: sim\nrepeats: 5000\nlimits: { steps: 30 }\nscenarios:\n  - scenario: seed-calibrated\n    assertions: { steps: { max: 30 } }\n',
    );
    const dir = path.join(tmp, 'check');
    const run = spawnGroup(['check', budgets, '-q', '-o', dir]);
    await oneRunFinished(dir, run);
    run.interrupt('SIGINT');
    const end = await run.done;
    expect(end.code).toBe(130);
    expect(end.stderr).toMatch(
      /bench: interrupted: \d+ of 5000 runs finished, budgets not judged; finish with: bench --resume /,
    );
    expect(end.stdout).not.toMatch(/PASS|FAIL/);
    expect(meta(dir).status).toBe('interrupted');
    expect(fs.existsSync(path.join(dir, 'junit.xml'))).toBe(false);
    expect(fs.existsSync(path.join(dir, 'summary.csv'))).toBe(true);
  });

  it('bench check with adaptive repeats: after SIGINT it says to run the check again, not --resume (which refuses such a sweep)', async () => {
    const budgets = path.join(tmp, 'budgets-adaptive.yaml');
    // A 30-step run's mean tokens against a far limit: decided at the first look of 2,000 runs, so the sweep is still in it.
    fs.writeFileSync(
      budgets,
      'model: sim\nrepeats: { min: 2000, max: 4000, batch: 1000 }\nlimits: { steps: 30 }\nscenarios:\n  - scenario: seed-calibrated\n    assertions: { total_tokens: { mean: 1000000000 } }\n',
    );
    const dir = path.join(tmp, 'check-adaptive');
    const run = spawnGroup(['check', budgets, '-q', '-o', dir]);
    await oneRunFinished(dir, run);
    run.interrupt('SIGINT');
    const end = await run.done;
    expect(end.code).toBe(130);
    expect(end.stderr).toMatch(/budgets not judged; run the check again \(the same seed takes the same runs\)/);
    expect(end.stderr).not.toMatch(/--resume/);
  });
});
