// The CLI as a user runs it: a real child process, real files, real exit codes.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-cli-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function bench(...args: string[]) {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/bench.js'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, FORCE_COLOR: '0' },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('bench --steps 12,30 (the quick start)', () => {
  const out = path.join(tmp, 'quick');
  const r = bench('--steps', '12,30', '--repeat', '3', '--out', out, '--json');

  it('exits 0 and prints the summary as JSON', () => {
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.results_dir).toBe(out);
    expect(json.configs.map((c: { config_id: string }) => c.config_id)).toEqual([
      'tiny-agent-sum-of-squares steps=12',
      'tiny-agent-sum-of-squares steps=30',
      'seed-calibrated steps=12',
      'seed-calibrated steps=30',
    ]);
    expect(json.configs[0].success_rate).toBe(1);
  });

  it('writes the results directory', () => {
    for (const f of ['meta.json', 'steps.jsonl', 'runs.jsonl', 'steps.csv', 'runs.csv', 'summary.csv'])
      expect(fs.existsSync(path.join(out, f)), f).toBe(true);
    const runs = fs
      .readFileSync(path.join(out, 'runs.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(runs).toHaveLength(12);
    for (const run of runs) expect(fs.existsSync(path.join(out, 'transcripts', `${run.run_id}.json`))).toBe(true);
    const meta = JSON.parse(fs.readFileSync(path.join(out, 'meta.json'), 'utf8'));
    expect(meta).toMatchObject({ status: 'complete', runs_planned: 12, runs_done: 12, seed: 1, repeat: 3 });
    expect(meta.grid.max_steps).toEqual([12, 30]);
    expect(meta.fixed.price).toMatchObject({ model: 'gpt-4o-mini', input_per_1m: 0.15, output_per_1m: 0.6 });
    expect(meta.versions['gpt-tokenizer']).toMatch(/^\d/);
    const header = fs.readFileSync(path.join(out, 'summary.csv'), 'utf8').split('\n')[0]!;
    expect(header).toContain('cost_usd_mean');
    expect(header).toContain('input_tokens_p95');
  });

  it('prints a table without --json', () => {
    const t = bench(
      '--scenario',
      'autogpt-recursive-verification',
      '--steps',
      '12',
      '--repeat',
      '2',
      '--out',
      path.join(tmp, 'table'),
    );
    expect(t.code).toBe(0);
    expect(t.stdout).toMatch(/configuration\s+runs\s+success\s+stop reasons/);
    expect(t.stdout).toMatch(/autogpt-recursive-verification steps=12\s+2\s+0\/2\s+spin 2 @8/);
  });

  it('refuses to overwrite results unless --force', () => {
    const again = bench('--steps', '12', '--repeat', '1', '--out', out);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already holds results.*--force/);
  });
});

describe('bad input: one line, exit 2, nothing written', () => {
  it.each([
    [['--scenario', 'nope'], /unknown scenario 'nope' \(known: .*seed-calibrated/],
    [['--steps', '0'], /--steps: 0 is below the minimum 1/],
    [['--steps', '-3'], /--steps: -3 is below the minimum 1/],
    [['--steps', 'abc'], /--steps: 'abc' is not a whole number/],
    [['--steps', '30..5'], /--steps: range '30\.\.5' runs backwards/],
    [['--model', 'gpt-5'], /unknown model 'gpt-5' \(accepted: sim/],
    [['--model', 'sim:nope'], /unknown simulated profile 'nope'/],
    [['--max-spin', '3'], /unknown option '--max-spin'/],
    [['--max-repeat', 'sometimes'], /--max-repeat: 'sometimes' is not a whole number.*or off/],
    [['--pricing', '/nonexistent/pricing.yaml'], /\/nonexistent\/pricing.yaml: cannot read file \(ENOENT\)/],
    [['--steps', 'off', '--max-cost', 'off', '--timeout', 'off'], /keep at least one of --steps/],
  ])('%j', (args, message) => {
    const out = path.join(tmp, `bad-${args.join('_').replace(/[^a-z0-9]/gi, '')}`);
    const r = bench(...args, '--out', out);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(fs.existsSync(out)).toBe(false);
  });

  it('an invalid scenario file names the file and the field', () => {
    const file = path.join(tmp, 'broken.yaml');
    fs.writeFileSync(
      file,
      'id: broken\ndescription: x\nsystem: s\ngoal: ""\nprofile: tiny-agent\ntools:\n  - name: run_python\n    kind: python\n    timeout_s: -1\n',
    );
    const r = bench('--scenario', file, '--out', path.join(tmp, 'broken-out'));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}: `);
    expect(r.stderr).toMatch(/goal: the goal must not be empty/);
    expect(r.stderr).toMatch(/tools\[0\]\.timeout_s/);
  });

  it('an unreadable pricing file gives a one-line error', () => {
    const file = path.join(tmp, 'pricing.yaml');
    fs.writeFileSync(file, 'models:\n  gpt-4o-mini:\n    input: cheap\n    output: 0.6\n');
    const r = bench('--pricing', file, '--out', path.join(tmp, 'p-out'));
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/models\.gpt-4o-mini\.input/);
  });
});

describe('bench scenarios', () => {
  it('lists the shipped scenarios with a description each', () => {
    const r = bench('scenarios');
    expect(r.code).toBe(0);
    for (const id of [
      'tiny-agent-sum-of-squares',
      'seed-calibrated',
      'autogpt-recursive-verification',
      'downloads-reorg',
      'perfectionist',
    ])
      expect(r.stdout).toMatch(new RegExp(`^${id}\\s+\\S.+$`, 'm'));
  });
});
