// A check on the simulated model says once, beside its verdicts and in summary.md, what it cannot
// show: the sim reacts to a prompt's length, not its meaning. A check on a recorded real model does not.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIM_CAVEAT } from '../src/gate/sim-caveat.ts';
import { benchInProcess, fixture } from './helpers/cli.ts';

let tmp: string;
beforeAll(() => void (tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-caveat-'))));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const budgets = (name: string, model: string) => {
  const file = path.join(tmp, name);
  fs.writeFileSync(
    file,
    `model: ${model}\nrepeats: 2\nlimits: { steps: 8 }\nscenarios:\n  - scenario: ${fixture('quick-sum.yaml')}\n    assertions: { steps: { max: 8 } }\n`,
  );
  return file;
};

describe('bench check on the simulated model', () => {
  it('prints the caveat once, beside the verdicts, and puts it in summary.md', async () => {
    const out = path.join(tmp, 'sim');
    const r = await benchInProcess(['check', budgets('sim.yaml', 'sim'), '-q', '-o', out, '--allow-outside-files']);
    expect(r.code).toBe(0);
    expect(r.stdout.split(SIM_CAVEAT)).toHaveLength(2);
    expect(r.stdout).toContain(`\nNOTE  ${SIM_CAVEAT}\n`);
    expect(fs.readFileSync(path.join(out, 'summary.md'), 'utf8')).toContain(`> ${SIM_CAVEAT}`);
    expect(SIM_CAVEAT).toContain('never give a final answer');
  });

  it('a check replayed from a cassette of a real model says nothing of the sort', async () => {
    const cassette = path.join(tmp, 'c.json');
    // A cassette recorded here stands in for one recorded from a real model: replayed, the model is replay:, not sim.
    expect(
      (
        await benchInProcess([
          '-s',
          fixture('quick-sum.yaml'),
          '-n',
          '2',
          '--steps',
          '8',
          '-q',
          '--record',
          cassette,
          '-o',
          path.join(tmp, 'rec'),
        ])
      ).code,
    ).toBe(0);
    const r = await benchInProcess([
      'check',
      budgets('replay.yaml', `replay:${cassette}`),
      '-q',
      '-o',
      path.join(tmp, 'replayed'),
      '--allow-outside-files',
    ]);
    expect(r.stdout).not.toContain('NOTE');
    expect(fs.readFileSync(path.join(tmp, 'replayed', 'summary.md'), 'utf8')).not.toContain(SIM_CAVEAT);
  });
});
