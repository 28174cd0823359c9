// `bench init` in a user's repository: what it writes, that it never overwrites, and that what it
// writes is valid (the budgets file loads, the workflow parses and installs the package). The
// whole path — a packed tarball installed in a new project — is `npm run test:package`.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { PACKAGE_NAME, scaffold } from '../src/cli/init.ts';
import { ownVersion } from '../src/contracts/paths.ts';
import { loadBudgets } from '../src/gate/load-budgets.ts';
import { benchInProcess } from './helpers/cli.ts';

let dir: string;
beforeEach(() => void (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-init-'))));
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const FILES = [
  'loopbench/budgets.yaml',
  'loopbench/prompt.md',
  'loopbench/agent.mjs',
  '.github/workflows/loopbench.yml',
];
const read = (f: string) => fs.readFileSync(path.join(dir, f), 'utf8');

describe('bench init', () => {
  it('writes the budgets file, the prompt, the agent wrapper and the workflow; the budgets file loads and names the prompt file', () => {
    const s = scaffold(dir);
    expect(s.written).toEqual(FILES);
    const loaded = loadBudgets(path.join(dir, 'loopbench/budgets.yaml'));
    expect(loaded.budgets.model).toBe('sim');
    expect(loaded.checks[0]!.scenario.agent === 'react' && loaded.checks[0]!.scenario.system).toBe(
      read('loopbench/prompt.md').trim(),
    );
    expect(read('loopbench/budgets.yaml')).toContain("reacts to a prompt's\n# LENGTH, not its meaning");
    execFileSync(process.execPath, ['--check', path.join(dir, 'loopbench/agent.mjs')]);
  });

  it('a project that does not list loopbench-cli gets a workflow that installs this exact version, not this repository', () => {
    scaffold(dir);
    const wf = YAML.parse(read('.github/workflows/loopbench.yml')) as {
      on: unknown;
      jobs: { budgets: { steps: Array<{ run?: string; uses?: string }> } };
    };
    const runs = wf.jobs.budgets.steps.flatMap((s) => (s.run ? [s.run] : []));
    expect(runs).toEqual([
      `npm install --no-save --no-audit --no-fund ${PACKAGE_NAME}@${ownVersion()}`,
      'npx bench check loopbench/budgets.yaml -o results/loopbench-budgets',
    ]);
    expect(wf.on).toEqual({ pull_request: null });
  });

  it('a project whose package.json lists loopbench-cli gets npm ci', () => {
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ devDependencies: { [PACKAGE_NAME]: '0.1.0' } }));
    scaffold(dir);
    const wf = YAML.parse(read('.github/workflows/loopbench.yml')) as {
      jobs: { budgets: { steps: Array<{ run?: string; with?: Record<string, unknown> }> } };
    };
    expect(wf.jobs.budgets.steps.flatMap((s) => (s.run ? [s.run] : []))[0]).toBe('npm ci');
    expect(wf.jobs.budgets.steps[1]!.with).toEqual({ 'node-version': 20, cache: 'npm' });
  });

  it('never overwrites: an existing file is kept and said so, the others are written', async () => {
    fs.mkdirSync(path.join(dir, 'loopbench'));
    fs.writeFileSync(path.join(dir, 'loopbench/budgets.yaml'), 'mine\n');
    const r = await benchInProcess(['init', '--dir', dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('kept   loopbench/budgets.yaml (it exists; not overwritten)');
    expect(r.stdout).toContain('wrote  loopbench/prompt.md');
    expect(read('loopbench/budgets.yaml')).toBe('mine\n');
    const again = await benchInProcess(['init', '--dir', dir]);
    expect(again.stdout.match(/^kept /gm)).toHaveLength(4);
  });

  it('--dir that is not a directory is a usage error', async () => {
    const r = await benchInProcess(['init', '--dir', path.join(dir, 'nope')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`bench: --dir ${path.join(dir, 'nope')}: not a directory\n`);
  });

  it('bench --version prints the package version', async () => {
    const r = await benchInProcess(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(
      JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../package.json'), 'utf8')).version,
    );
  });
});
