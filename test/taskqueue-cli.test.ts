import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { addRunOptions } from '../src/cli/run.ts';
import { buildSweepSpec, type RunOptions } from '../src/runner/plan.ts';
import { UsageError } from '../src/contracts/errors.ts';
import { loadResumeState, parsePauseAt } from '../src/runner/taskqueue-plan.ts';
import { expandSweep } from '../src/runner/sweep.ts';
import { resolveScenarios } from '../src/scenario/loader.ts';
import { ROOT } from '../src/contracts/paths.ts';
import { patient } from './helpers/patient.ts';

function options(args: string[]): RunOptions {
  const cmd = addRunOptions(new Command().exitOverride()).configureOutput({ writeErr: () => {} });
  cmd.parse(args, { from: 'user' });
  return cmd.opts() as RunOptions;
}
const spec = (args: string[]) => buildSweepSpec(options(args));
const EXPLOSION = ['--scenario', 'babyagi-queue-explosion'];

describe('task-queue flags', () => {
  it('sweep rounds, cap and dedup into configurations whose labels and settings name them', () => {
    const plans = expandSweep(
      spec([...EXPLOSION, '--max-rounds', '3,5,10', '--queue-cap', 'off,10', '--dedup', 'off,0.8', '-n', '1']),
    );
    expect(plans).toHaveLength(12);
    expect(plans.map((p) => p.configId)).toContain('babyagi-queue-explosion steps=12 rounds=5 cap=10 dedup=0.8');
    const p = plans.find((x) => x.configId.endsWith('rounds=10 cap=10 dedup=0.8'))!;
    expect(p.settings.limits.max_rounds).toBe(10);
    expect(p.settings.agent).toEqual({
      queue_cap: 10,
      dedup: 0.8,
      anchor: false,
      max_result_tokens: null,
      compress_at: 64000,
    });
  });

  it("compress-at auto is half the priced model's context window", () => {
    expect(spec([...EXPLOSION, '--price-model', 'gpt-4.1-mini']).grid.agent.compress_at).toEqual([523788]);
    expect(spec([...EXPLOSION, '--compress-at', 'off,2000']).grid.agent.compress_at).toEqual([null, 2000]);
    expect(spec([...EXPLOSION, '--anchor', 'on,off', '--max-result-tokens', '300']).grid.agent).toMatchObject({
      anchor: [true, false],
      max_result_tokens: [300],
    });
  });

  it('per-role models from the flag override the scenario and reach the settings', () => {
    const [p] = expandSweep(spec([...EXPLOSION, '--role-model', 'execute=sim:babyagi-converging', '-n', '1']));
    expect(p!.settings.role_models).toEqual({ execute: 'sim:babyagi-converging' });
    expect(p!.settings.role_prices).toBeUndefined();
    // A role whose model has its own price (an openai: model in the table) is billed at it.
    const s = spec([...EXPLOSION, '--role-model', 'execute=sim:babyagi-converging', '-n', '1']);
    const price = { ...s.fixed.price, model: 'other', input_per_1m: 9 };
    const [q] = expandSweep({ ...s, fixed: { ...s.fixed, model_prices: { 'sim:babyagi-converging': price } } });
    expect(q!.settings.role_prices).toEqual({ execute: price });
  });

  it.each([
    [['--queue-cap', '0'], /--queue-cap: 0 is below the minimum 1/],
    [['--dedup', '1.5'], /--dedup: 1.5 is above the maximum 1/],
    [['--dedup', 'similar'], /--dedup: 'similar' is not a number/],
    [['--anchor', 'yes'], /--anchor: 'yes' is not accepted \(accepted: on, off\)/],
    [['--max-result-tokens', '-5'], /--max-result-tokens: -5 is below the minimum 1/],
    [['--compress-at', 'half'], /--compress-at: 'half' is not a whole number/],
    [['--max-rounds', '0'], /--max-rounds: 0 is below the minimum 1/],
    [['--role-model', 'planner=sim'], /--role-model: unknown role 'planner'/],
    [['--role-model', 'execute'], /--role-model: 'execute' is not role=model/],
    [['--role-model', 'execute=gpt:x'], /unknown model 'gpt:x'/],
    [
      ['--role-model', 'create=sim:tiny-agent'],
      /--role-model sim:tiny-agent: profile 'tiny-agent' has no taskqueue section/,
    ],
    [['--model', 'sim:tiny-agent'], /--model sim:tiny-agent: profile 'tiny-agent' has no taskqueue section/],
  ])('%j is a one-line usage error naming the flag', (args, msg) => {
    expect(() => spec([...EXPLOSION, ...args])).toThrow(UsageError);
    expect(() => spec([...EXPLOSION, ...args])).toThrow(msg);
  });

  it('are refused when no taskqueue scenario runs', () => {
    expect(() => spec(['--scenario', 'seed-calibrated', '--queue-cap', '5', '--trace'])).toThrow(
      '--queue-cap, --trace: only for taskqueue scenarios (none is in this sweep)',
    );
    expect(spec(['--scenario', 'seed-calibrated']).grid.agent).toEqual({});
    expect(() => spec(['--scenario', 'seed-calibrated', '--model', 'sim:babyagi-converging'])).toThrow(
      /profile 'babyagi-converging' has no ReAct behaviour/,
    );
  });

  it('--pause-at takes one round ≥ 1; --resume-state checks the file and the scenario', () => {
    expect(parsePauseAt('3')).toBe(3);
    expect(() => parsePauseAt('0')).toThrow(/--pause-at: 0 is below the minimum 1/);
    expect(() => parsePauseAt('2,3')).toThrow(/--pause-at: takes one round/);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tq-state-'));
    const file = path.join(dir, 's.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        format: 'loopbench-taskqueue-state/1',
        scenario: 'babyagi-converging',
        round: 1,
        queue: [''],
        results: [],
        summary: null,
        summarized: 0,
        totals: {},
      }),
    );
    expect(() => loadResumeState(file, resolveScenarios(['babyagi-converging']))).toThrow(
      /s\.json: queue\[0\]: .*totals\.steps/,
    );
    expect(() => loadResumeState(path.join(dir, 'none.json'), [])).toThrow(/none\.json: cannot read file/);
  });

  it('are documented in --help', () => {
    const help = addRunOptions(new Command()).helpInformation();
    for (const f of [
      '--max-rounds',
      '--queue-cap',
      '--dedup',
      '--anchor',
      '--max-result-tokens',
      '--compress-at',
      '--role-model',
      '--trace',
      '--pause-at',
      '--resume-state',
    ])
      expect(help).toContain(f);
  });
});

const exec = promisify(execFile);
const bench = (args: string[]) => exec(process.execPath, [path.join(ROOT, 'bin/bench.js'), ...args], { cwd: ROOT });

describe('bench --pause-at / --resume-state, end to end', () => {
  it(
    'pauses with exit 0 and a message, writes the state, and a resumed run continues from it',
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tq-pause-'));
      const common = ['--scenario', 'babyagi-queue-explosion', '-n', '1', '-q', '--max-rounds', '4'];
      const paused = await bench([...common, '--pause-at', '2', '--out', path.join(dir, 'a')]);
      expect(paused.stderr).toMatch(
        /paused 1 run\(s\) after round 2; state in .*state\/<run_id>\.json — continue with --resume-state FILE/,
      );
      const stateDir = path.join(dir, 'a', 'state');
      const [file] = fs.readdirSync(stateDir);
      const state = JSON.parse(fs.readFileSync(path.join(stateDir, file!), 'utf8'));
      expect(state).toMatchObject({ scenario: 'babyagi-queue-explosion', round: 2 });
      state.queue = ['Check the espresso grinder list once more', ...state.queue];
      fs.writeFileSync(path.join(stateDir, file!), JSON.stringify(state));

      const resumed = await bench([
        ...common,
        '--resume-state',
        path.join(stateDir, file!),
        '--out',
        path.join(dir, 'b'),
        '--json',
      ]);
      const [run] = fs
        .readFileSync(path.join(dir, 'b', 'runs.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(run.stop_reason).toBe('max_rounds');
      expect(run.extra.rounds.map((r: { round: number }) => r.round)).toEqual([3, 4]);
      expect(run.extra.rounds[0].task).toBe('Check the espresso grinder list once more');
      expect(JSON.parse(resumed.stdout).configs[0].runs).toBe(1);
    },
    patient(60_000),
  );
});
