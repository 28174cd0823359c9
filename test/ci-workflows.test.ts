// The GitHub Actions workflows loopbench ships for other repositories (examples/ and bench init's):
// they install the published package at this version (never this repository), and the behaviour
// gate's script does what its comments say — run here with bash against bench serve standing in
// for the real model: record when there is no cassette, replay for free when it covers the prompt,
// ask the model again (and re-record) when the prompt changed.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_NAME, scaffold } from '../src/cli/init.ts';
import { ownVersion } from '../src/contracts/paths.ts';
import { spawnServe } from '../src/serve/spawn.ts';
import { ROOT } from './helpers/cli.ts';
import { npxBench, runs, workflow } from './helpers/workflows.ts';
import { patient } from './helpers/patient.ts';

let tmp: string;
beforeAll(() => void (tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-workflows-'))));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('the shipped workflows', () => {
  it('install loopbench-cli at this version and gate loopbench/budgets.yaml, not this repository', () => {
    const init = path.join(tmp, 'init');
    fs.mkdirSync(init);
    scaffold(init);
    for (const file of [
      'examples/github-actions.yml',
      'examples/github-actions-behaviour.yml',
      path.join(init, '.github/workflows/loopbench.yml'),
    ]) {
      const commands = runs(workflow(path.resolve(ROOT, file)));
      const installs = commands.filter((c) => c.startsWith('npm '));
      expect(installs.length, file).toBeGreaterThan(0);
      for (const c of installs)
        expect(c, file).toBe(`npm install --no-save --no-audit --no-fund ${PACKAGE_NAME}@${ownVersion()}`);
      expect(commands.join('\n'), file).not.toMatch(/examples\/budgets|npm ci/);
      expect(
        commands.some((c) => c.includes('npx bench check loopbench/budgets.yaml')),
        file,
      ).toBe(true);
    }
  });
});

describe('the behaviour gate (examples/github-actions-behaviour.yml)', { timeout: patient(120_000) }, () => {
  const step = workflow(path.join(ROOT, 'examples/github-actions-behaviour.yml')).jobs.behaviour!.steps.find((s) =>
    s.name?.startsWith('judge the prompt'),
  )!;
  let server: Awaited<ReturnType<typeof spawnServe>>;
  let project: string;
  let log: string;
  const calls = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).length : 0);
  const judge = () => {
    const r = spawnSync('bash', ['-c', step.run!], {
      cwd: project,
      encoding: 'utf8',
      env: {
        PATH: `${path.join(tmp, 'bin')}:${process.env.PATH}`,
        HOME: process.env.HOME,
        OPENAI_API_KEY: 'sk-test-behaviour-0000',
        OPENAI_BASE_URL: server.url,
        FORCE_COLOR: '0',
      },
    });
    return { code: r.status, out: r.stdout + r.stderr };
  };

  beforeAll(async () => {
    // `npx bench` in the workflow is this checkout's bench here.
    npxBench(path.join(tmp, 'bin'));
    log = path.join(tmp, 'serve.jsonl');
    server = await spawnServe(['--profile', 'tiny-agent', '--log', log]);
    project = path.join(tmp, 'project');
    fs.mkdirSync(project);
    scaffold(project);
    const budgets = path.join(project, 'loopbench/budgets.yaml');
    fs.writeFileSync(
      budgets,
      fs
        .readFileSync(budgets, 'utf8')
        .replace(/^model: sim$/m, 'model: openai:gpt-4o-mini')
        .replace('repeats: 20', 'repeats: 3')
        .replace('success_rate: { min: 0.8 }', 'success_rate: { min: 0.2 }'),
    );
  });
  afterAll(() => server?.close());

  it('no cassette yet: asks the model under the spend cap, records the cassette, passes', () => {
    const r = judge();
    expect(r.out).toContain('::notice::loopbench/cassette.json does not cover this prompt');
    expect(r.out).toMatch(/spend: at most \$0\.15 — 3 run\(s\) planned/);
    expect(r.code).toBe(0);
    expect(fs.existsSync(path.join(project, 'loopbench/cassette.json'))).toBe(true);
    expect(calls()).toBeGreaterThan(0);
    expect(r.out).not.toContain('NOTE  model sim');
  });

  it('the cassette covers the prompt: replayed, the model is not asked, passes', () => {
    const before = calls();
    const r = judge();
    expect(r.code).toBe(0);
    expect(r.out).not.toContain('::notice::');
    expect(calls()).toBe(before);
  });

  it('the prompt changed: the replay is not measured (exit 3), so the model is asked again and the cassette re-recorded', () => {
    fs.appendFileSync(path.join(project, 'loopbench/prompt.md'), 'Answer in one short sentence.\n');
    const before = calls();
    const r = judge();
    expect(r.out).toContain('holds no recorded answer');
    expect(r.out).toContain('::notice::');
    expect(r.code).toBe(0);
    expect(calls()).toBeGreaterThan(before);
    // The new cassette alone covers the new prompt.
    expect(judge().out).not.toContain('::notice::');
  });
});
