import type { Command } from 'commander';
import { loadAllScenarios } from '../scenario/loader.ts';

export function registerScenarios(program: Command): void {
  program
    .command('scenarios')
    .description('list the shipped scenarios with a one-line description each')
    .option('--json', 'print them as JSON')
    .action((opts: { json?: boolean }) => {
      const all = loadAllScenarios();
      if (opts.json) {
        console.log(
          JSON.stringify(
            all.map((s) => ({
              id: s.id,
              agent: s.agent,
              profile: s.profile,
              description: s.description,
              file: s.file,
            })),
            null,
            2,
          ),
        );
        return;
      }
      const width = Math.max(...all.map((s) => s.id.length));
      for (const s of all) console.log(`${s.id.padEnd(width)}  ${s.description.split('\n')[0]}`);
    });
}
