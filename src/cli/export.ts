// `bench export DIR --format atif`: each run of a results directory as an ATIF trajectory.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { UsageError } from '../contracts/errors.ts';
import { resultFile } from '../results/results-dir.ts';
import { exportAtif } from '../trajectories/export-dir.ts';

export function registerExport(program: Command): void {
  program
    .command('export')
    .description('write each run of a results directory as a trajectory file (ATIF), for trajectory viewers and other tools')
    .argument('<dir>', 'a results directory (holding runs.jsonl and steps.jsonl)')
    .option('--format <format>', 'output format: atif', 'atif')
    .option('-o, --out <dir>', 'folder for the trajectory files (default: DIR/atif)')
    .action(async (dirArg: string, o: { format: string; out?: string }) => {
      if (o.format !== 'atif') throw new UsageError(`--format: '${o.format}' is not supported (accepted: atif)`);
      const dir = path.resolve(dirArg);
      if (!fs.existsSync(resultFile(dir, 'runs'))) throw new UsageError(`${dirArg}: not a results directory (no runs.jsonl)`);
      const out = path.resolve(o.out ?? path.join(dir, 'atif'));
      const done = await exportAtif(dir, out);
      console.log(`exported ${done.runs} run(s) to ${out} (${done.withTranscript} with their messages from transcripts/, the others with metrics and actions only)`);
    });
}
