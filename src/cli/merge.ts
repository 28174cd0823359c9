import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { buildReports } from '../report/build.ts';
import { runsAgainstSteps } from '../report/data/run-steps.ts';
import { mergeShards } from '../results/merge.ts';
import { hasRecords, resultsDirFor } from '../results/results-dir.ts';
import { UsageError } from '../contracts/errors.ts';
import { printSummary } from './summary-table.ts';

export function registerMerge(program: Command): void {
  program
    .command('merge')
    .description('merge the shard directories of one sweep (bench --shard i/n) into one results directory')
    .argument('<dirs...>', 'every shard directory of the sweep, 1/n to n/n')
    .requiredOption('-o, --out <name>', 'merged results directory: results/<name>, or a path')
    .option('--force', 'overwrite an existing results directory')
    .option('--json', 'print the summary as JSON on stdout')
    .action(async (dirArgs: string[], o: { out: string; force?: boolean; json?: boolean }) => {
      const dirs = dirArgs.map((d) => path.resolve(d));
      const out = resultsDirFor(o.out);
      if (dirs.includes(out)) throw new UsageError(`--out ${o.out}: is one of the shards`);
      if (fs.existsSync(out) && hasRecords(out)) {
        if (!o.force) throw new UsageError(`${out} already holds results (use --force to overwrite, or another --out)`);
        fs.rmSync(out, { recursive: true, force: true });
      }
      const merged = await mergeShards(dirs, out, process.argv.slice(2), runsAgainstSteps);
      if (merged.skippedLines > 0)
        console.error(`bench: skipped ${merged.skippedLines} incomplete line(s) in the shards`);
      if (merged.status !== 'complete')
        console.error(`bench: merged sweep is ${merged.status} (a shard did not finish every run)`);
      const built = await buildReports(out);
      if (!o.json) console.log(`merged ${merged.shards} shards, ${merged.runs} runs`);
      printSummary({ summary: built.summary }, { json: o.json, dir: out });
    });
}
