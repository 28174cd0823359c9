// Bad input everywhere: scenario, profile and pricing files, flag values, resume and report
// directories. Each must end in one line naming the file or flag, the field and what is
// accepted; exit code 2; no stack trace; and no results directory.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSweepSpec, type RunOptions, type StartOptions } from '../src/runner/plan.ts';
import { listScenarioFiles } from '../src/scenario/loader.ts';
import { BAD_INPUTS, GOOD_SCENARIO, type BadInput } from './helpers/bad-inputs.ts';
import { bench, benchInProcess, ROOT } from './helpers/cli.ts';
import { patient } from './helpers/patient.ts';

let tmp: string;
beforeAll(() => void (tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-bad-'))));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function prepare(c: BadInput, i: number): { dir: string; args: string[]; message: string } {
  const dir = path.join(tmp, `case-${i}`);
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(c.files ?? {})) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  const args = c.args.map((a) => a.replaceAll('{dir}', dir));
  if (c.out !== false) args.push('-o', path.join(dir, 'out'));
  return { dir, args, message: c.message.replaceAll('{dir}', dir).replaceAll('{root}', ROOT) };
}

// Child processes on a loaded machine: generous limits (nothing here asserts a duration).
describe('bad input → one line, exit 2, nothing written', { timeout: patient(240_000) }, () => {
  it.each(BAD_INPUTS.map((c, i) => [c.name, c, i] as const))('%s', async (_name, c, i) => {
    const { dir, args, message } = prepare(c, i);
    const r = await benchInProcess(args);
    expect(r.stderr).toBe(`${message}\n`);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(fs.existsSync(path.join(dir, 'out'))).toBe(false);
  });

  it('through the real CLI: exit 2, one line on stderr, no stack, no results directory; --debug adds the stack', async () => {
    const picked = ['scenario: unknown tool field', 'cli: unknown flag'];
    const cases = picked.map((name) =>
      prepare(
        BAD_INPUTS.find((c) => c.name === name)!,
        1000 + picked.indexOf(name),
      ),
    );
    const debugCase = cases[0]!;
    const [plain, withDebug] = await Promise.all([
      Promise.all(cases.map((c) => bench(c.args))),
      bench([...debugCase.args, '--debug']),
    ]);
    plain.forEach((r, i) => {
      expect(r.stderr).toBe(`${cases[i]!.message}\n`);
      expect(r.code).toBe(2);
      expect(fs.existsSync(path.join(cases[i]!.dir, 'out'))).toBe(false);
    });
    expect(withDebug.code).toBe(2);
    expect(withDebug.stderr.split('\n')[0]).toBe(debugCase.message);
    expect(withDebug.stderr).toMatch(/(UsageError|ConfigError): .*\n\s+at /);
  });

  it('--resume on a directory whose meta.json is a directory: bad input, not a crash', async () => {
    const dir = path.join(tmp, 'meta-is-dir');
    fs.mkdirSync(path.join(dir, 'meta.json'), { recursive: true });
    const r = await benchInProcess(['--resume', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `bench: ${path.join(dir, 'meta.json')}: cannot read it (EISDIR: illegal operation on a directory, read)\n`,
    );
  });

  it('every shipped scenario passes the same checks (its own profile only calls tools it declares)', () => {
    const base = {
      model: 'sim',
      steps: '12',
      maxCost: '0.5',
      timeout: '120',
      maxRepeat: '3',
      maxTokens: 'off',
      maxCalls: 'off',
      repeat: '1',
      seed: '1',
      concurrency: '1',
      transcripts: false,
      promptCache: 'off',
      maxOutputTokens: '1024',
      requestTimeout: '60',
      maxRetries: '2',
    } satisfies RunOptions & StartOptions;
    for (const file of listScenarioFiles()) expect(() => buildSweepSpec({ ...base, scenario: file })).not.toThrow();
    expect(GOOD_SCENARIO).toContain('profile: tiny-agent');
  });
});
