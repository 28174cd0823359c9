import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { buildReports } from '../report/build.ts';
import { resultFile } from '../runner/results-dir.ts';
import { UsageError } from './errors.ts';
import { printSummary } from './summary-table.ts';

export function registerReport(program: Command): void {
  program
    .command('report')
    .description('rebuild every report of a results directory from its records (finished, interrupted or merged runs)')
    .argument('<dir>', 'a results directory (holding runs.jsonl and steps.jsonl)')
    .option('--json', 'print the summary as JSON on stdout')
    .action(async (dirArg: string, opts: { json?: boolean }) => {
      const dir = path.resolve(dirArg);
      if (!fs.existsSync(resultFile(dir, 'runs')) && !fs.existsSync(resultFile(dir, 'steps')))
        throw new UsageError(`${dirArg}: not a results directory (no runs.jsonl or steps.jsonl)`);
      const built = await buildReports(dir);
      if (built.skippedLines > 0) console.error(`bench: skipped ${built.skippedLines} incomplete line(s) in the records`);
      printSummary(built.summary, { json: opts.json, dir, findings: built.loop.findings });
    });
}
