// `bench run --help` and `bench check --help` in groups: every option has one (a new flag must be
// given a group in src/cli/help-groups.ts), and the groups come in reading order.
import { describe, expect, it } from 'vitest';
import { OTHER } from '../src/cli/help-groups.ts';
import { buildProgram } from '../src/cli/program.ts';

const command = (name: string) => buildProgram().commands.find((c) => c.name() === name)!;

describe('help groups', () => {
  for (const name of ['run', 'check']) {
    it(`every option of bench ${name} is in a named group`, () => {
      const ungrouped = command(name)
        .options.filter((o) => !o.hidden && (o.helpGroupHeading === undefined || o.helpGroupHeading === OTHER))
        .map((o) => o.flags);
      expect(ungrouped).toEqual([]);
    });
  }

  it('bench run --help lists the sweep, brakes, models, task queue, reflection and context, pricing, running and output in that order', () => {
    const help = command('run').helpInformation();
    const headings = help.split('\n').filter((l) => /^[A-Z][^:]*(\([^)]*\))?:$/.test(l));
    expect(headings.map((h) => h.replace(/ \(.*\):$/, ':'))).toEqual([
      'The sweep:',
      'Brakes:',
      'Models and connection:',
      'Task queue:',
      'Reflection and context:',
      'Pricing:',
      'Running:',
      'Output:',
      'Options:',
    ]);
  });
});
