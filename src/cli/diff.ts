// `bench diff A B`: two sweeps side by side, per matching configuration, with changes and 95%
// intervals (cost per successful task: each side's own); refuses (exit 2) two sweeps that differ in anything the user did not allow.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { UsageError } from '../contracts/errors.ts';
import { writeFileAtomic } from '../results/atomic.ts';
import { toCsv } from '../report/render/csv.ts';
import { diffCsvRows, diffMarkdown, diffText } from '../report/diff/format.ts';
import { compareSweeps } from '../report/diff/compare-sweeps.ts';
import { DIFFERENCE_KINDS, type DifferenceKind } from '../report/data/sweep-settings.ts';
import { parseChoiceList } from '../runner/values.ts';

interface DiffOptions {
  allow?: string;
  md?: string;
  csv?: string;
  quiet?: boolean;
}

export const allowHelp = Object.entries(DIFFERENCE_KINDS)
  .map(([k, v]) => `${k} (${v})`)
  .join(', ');

export const parseAllow = (text: string | undefined): Set<DifferenceKind> =>
  new Set(
    text === undefined ? [] : parseChoiceList(text, '--allow', Object.keys(DIFFERENCE_KINDS) as DifferenceKind[]),
  );

export function registerDiff(program: Command): void {
  program
    .command('diff')
    .description(
      'compare two sweeps per matching configuration: cost, tokens, steps, success and cost per successful task, with changes and 95% intervals (exit 2 when they differ in what --allow does not name)',
    )
    .argument('<a>', 'the sweep to compare against (before): a results directory, or its name under results/')
    .argument('<b>', 'the sweep to compare (after): a results directory, or its name under results/')
    .option('--allow <kinds>', `what the sweeps may differ in, comma-separated: ${allowHelp}`)
    .option('--md <file>', 'also write the comparison as Markdown (for a pull request or a cost review)')
    .option('--csv <file>', 'also write the comparison as CSV, one row per configuration and metric')
    .option(
      '-q, --quiet',
      'do not print the comparison (write it with --md/--csv); the exit code still says whether the sweeps could be compared',
    )
    .action(async (a: string, b: string, o: DiffOptions) => {
      const allowed = parseAllow(o.allow);
      // Before the comparison: a file that cannot be written is bad input, not a failure after the work.
      for (const [flag, file] of [
        ['--md', o.md],
        ['--csv', o.csv],
      ] as const) {
        if (file === '') throw new UsageError(`${flag}: needs a file name`);
        if (file !== undefined && !fs.existsSync(path.dirname(path.resolve(file))))
          throw new UsageError(`${flag} ${file}: the directory ${path.dirname(file)} does not exist`);
      }
      const { diff, differences, notes } = await compareSweeps(a, b, allowed);
      for (const n of notes) console.error(`bench: ${n}`);
      if (!o.quiet) process.stdout.write(diffText(a, b, diff, differences));
      if (o.md) writeFileAtomic(o.md, diffMarkdown(a, b, diff, differences));
      if (o.csv) writeFileAtomic(o.csv, toCsv(diffCsvRows(diff)));
    });
}
