import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../src/contracts/errors.ts';
import { buildSweepSpec, type RunOptions } from '../src/runner/plan.ts';
import { expandSweep } from '../src/runner/sweep.ts';
import { RUN_DEFAULTS } from '../src/runner/run-defaults.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const defaults: RunOptions = { ...RUN_DEFAULTS, scenario: 'seed-calibrated', repeat: '2' };

describe('--reflection, --max-reflections, --context', () => {
  it('sweep every listed value, one configuration each', () => {
    const spec = buildSweepSpec({
      ...defaults,
      reflection: 'off,final,every-step',
      maxReflections: '3',
      context: 'full,window:6,summarize:8000',
    });
    expect(spec.grid.reflection).toEqual(['off', 'final', 'every-step']);
    expect(spec.grid.context).toEqual(['full', 'window:6', 'summarize:8000']);
    expect(spec.fixed.max_reflections).toBe(3);
    const plans = expandSweep(spec);
    expect(plans).toHaveLength(3 * 3 * 2);
    expect(new Set(plans.map((p) => p.configId)).size).toBe(9);
    expect(plans[0]!.configId).toBe('seed-calibrated steps=12 reflection=off context=full');
  });

  it.each([
    [{ reflection: 'sometimes' }, /--reflection: 'sometimes' is not accepted \(accepted: off, final, every-step\)/],
    [{ maxReflections: '0' }, /--max-reflections: 0 is below the minimum 1/],
    [{ maxReflections: '1,2' }, /--max-reflections: takes one value/],
    [{ context: 'full,window:0' }, /--context: 'window:0' keeps no exchange/],
    [{ context: 'summarize:100' }, /--context: 'summarize:100' is below the minimum/],
  ])('rejects %j with a one-line usage error', (bad, message) => {
    expect(() => buildSweepSpec({ ...defaults, ...bad })).toThrow(UsageError);
    expect(() => buildSweepSpec({ ...defaults, ...bad })).toThrow(message);
  });

  it('are documented in --help, and a bad value exits 2 without a stack trace', () => {
    const bench = (...args: string[]) =>
      spawnSync(process.execPath, ['bin/bench.js', ...args], { cwd: ROOT, encoding: 'utf8' });
    const help = bench('run', '--help');
    expect(help.status).toBe(0);
    for (const flag of ['--reflection <list>', '--max-reflections <n>', '--context <list>'])
      expect(help.stdout).toContain(flag);
    expect(help.stdout).toMatch(/summarize:T/);
    const bad = bench('--context', 'window:x', '-q');
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/^bench: --context: 'window:x'/);
  });
});
