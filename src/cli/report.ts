import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { DEFAULT_PRICING_FILE, loadPricing, priceFor } from '../meter/pricing.ts';
import { DEFAULT_VOLUMES, parseVolumes } from '../report/volume.ts';
import { resultFile } from '../results/results-dir.ts';
import type { Price } from '../contracts/settings.ts';
import { parseChoiceList } from '../runner/values.ts';
import { UsageError } from '../contracts/errors.ts';
import { printSummary } from './summary-table.ts';

interface ReportOptions {
  json?: boolean;
  priceAs?: string;
  pricing?: string;
  volume?: string;
}

function resolvePriceAs(text: string, file: string): Price[] {
  const table = loadPricing(file);
  return parseChoiceList(text, '--price-as', (v) => v.length > 0).map((m) => priceFor(table, m, file));
}

export function registerReport(program: Command): void {
  program
    .command('report')
    .description('rebuild every report of a results directory from its records (finished, interrupted or merged runs)')
    .argument('<dir>', 'a results directory (holding runs.jsonl and steps.jsonl)')
    .option('--json', 'print the summary as JSON on stdout')
    .option('--price-as <models>', 're-price the recorded tokens as these models from the pricing table, with and without prompt caching (e.g. gpt-4o-mini,gpt-4o)')
    .option('--pricing <file>', 'pricing table for --price-as (YAML, like data/pricing.yaml)')
    .option('--volume <list>', `runs to project cost for, e.g. 10000/day or 5000/hour,2e6/month (default: ${DEFAULT_VOLUMES.join(',')} per day)`)
    .action(async (dirArg: string, opts: ReportOptions) => {
      const dir = path.resolve(dirArg);
      if (!fs.existsSync(resultFile(dir, 'runs')) && !fs.existsSync(resultFile(dir, 'steps')))
        throw new UsageError(`${dirArg}: not a results directory (no runs.jsonl or steps.jsonl)`);
      if (opts.pricing && !opts.priceAs) throw new UsageError('--pricing: only used with --price-as');
      const priceAs = opts.priceAs === undefined ? undefined : resolvePriceAs(opts.priceAs, opts.pricing ?? DEFAULT_PRICING_FILE);
      const volumes = opts.volume === undefined ? undefined : parseVolumes(opts.volume);
      // Loaded here so flag errors (and every other command) do not wait for vega and resvg to load.
      const { buildReports } = await import('../report/build.ts');
      const built = await buildReports(dir, { priceAs, volumes });
      if (built.skippedStepLines > 0) console.error(`bench: skipped ${built.skippedStepLines} incomplete line(s) of steps.jsonl`);
      if (built.skippedRunLines > 0) console.error(`bench: skipped ${built.skippedRunLines} incomplete line(s) of runs.jsonl`);
      if (!fs.existsSync(resultFile(dir, 'runs'))) console.error(`bench: ${dirArg} has no runs.jsonl: built the per-step reports (steps.csv, steps_by_index.csv, fit.csv); tables of runs are empty`);
      printSummary(built.summary, { json: opts.json, dir, findings: built.findings });
    });
}
