import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { DEFAULT_PRICING_FILE, loadPricing } from '../meter/pricing.ts';
import { requirePrice } from '../meter/model-price.ts';
import { recoverGatewayRuns } from '../gateway/recover.ts';
import { DEFAULT_VOLUMES, parseVolumes } from '../report/stats/volume.ts';
import { describeDuplicates } from '../report/data/load-runs.ts';
import { dayIn } from '../report/stats/spend.ts';
import { WHAT_IF_LIMITS, type WhatIfName } from '../whatif/derive-run.ts';
import { deriveConfigs, type WhatIfRequest } from '../whatif/derive-configs.ts';
import { resultFile } from '../results/results-dir.ts';
import type { Price } from '../contracts/settings.ts';
import { resolvePrice, type PriceFlags } from '../runner/plan.ts';
import { parseChoiceList, parseNumberList } from '../runner/values.ts';
import { UsageError } from '../contracts/errors.ts';
import { printSummary } from './summary-table.ts';

interface ReportOptions extends PriceFlags {
  json?: boolean;
  quiet?: boolean;
  priceAs?: string;
  volume?: string;
  whatIf?: string[];
  timezone?: string;
}

function resolvePriceAs(text: string, file: string): Price[] {
  const table = loadPricing(file);
  return parseChoiceList(text, '--price-as', (v) => v.length > 0).map((m) => requirePrice(table, m, file));
}

/** `steps=5..30:5` → the limit and its values; spin (`repeat`) and the others as `bench run` spells their values. */
export function parseWhatIf(text: string): WhatIfRequest {
  const m = /^([a-z]+)=(.+)$/.exec(text.trim());
  const names = Object.keys(WHAT_IF_LIMITS);
  if (!m)
    throw new UsageError(`--what-if: '${text}' is not LIMIT=VALUES, like steps=5..30:5 (limits: ${names.join(', ')})`);
  if (!names.includes(m[1]!))
    throw new UsageError(`--what-if: '${m[1]}' is not a limit a what-if can derive (accepted: ${names.join(', ')})`);
  const name = m[1] as WhatIfName;
  const whole = name !== 'cost' && name !== 'timeout';
  return {
    name,
    values: parseNumberList(m[2]!, { flag: `--what-if ${name}`, off: true, integer: whole, min: whole ? 1 : 0 }),
  };
}

export const collect = (v: string, acc: string[] = []) => [...acc, v];

/** `--what-if` flags as the reports take them: the derivation, or undefined without any. */
export function whatIfOf(flags: readonly string[] | undefined) {
  return whatIfFor(flags?.map(parseWhatIf));
}

/** What-if requests as the reports take them. */
export function whatIfFor(requests: readonly WhatIfRequest[] | undefined) {
  // The brakes are replayed by src/whatif/; the reports only read what it derives.
  return requests?.length
    ? (records: Parameters<typeof deriveConfigs>[0], stepsOf: Parameters<typeof deriveConfigs>[1]) =>
        deriveConfigs(records, stepsOf, requests)
    : undefined;
}

export function registerReport(program: Command): void {
  program
    .command('report')
    .description('rebuild every report of a results directory from its records (finished, interrupted or merged runs)')
    .argument('<dir>', 'a results directory (holding runs.jsonl and steps.jsonl)')
    .option('--json', 'print the summary as JSON on stdout')
    .option('-q, --quiet', 'write the reports without printing the summary (warnings and errors still go to stderr)')
    .option(
      '--price-model <name>',
      're-price every report (summary, findings, charts, volumes) from the recorded tokens as this model of the pricing table',
    )
    .option('--price-in <usd>', 're-price every report at a custom input price, USD per 1M tokens (with --price-out)')
    .option('--price-out <usd>', 'custom output price, USD per 1M tokens (with --price-in)')
    .option('--price-cached <usd>', 'custom cached-input price, USD per 1M tokens (default: the input price)')
    .option(
      '--price-as <models>',
      'also tabulate these models in repricing.csv, with and without prompt caching (e.g. gpt-4o-mini,gpt-4o); with one model and no other pricing flag, the whole report is re-priced as it',
    )
    .option('--pricing <file>', 'pricing table for --price-model and --price-as (YAML, like data/pricing.yaml)')
    .option(
      '--what-if <limit=values>',
      `derive runs under other limits from the recorded step records, no model called (repeatable; limits: ${Object.keys(WHAT_IF_LIMITS).join(', ')}; e.g. steps=5..30:5)`,
      collect,
    )
    .option(
      '--volume <list>',
      `runs to project cost for, e.g. 10000/day or 5000/hour,2e6/month (default: ${DEFAULT_VOLUMES.map((v) => v.runs_per_day).join(',')} per day)`,
    )
    .option(
      '--timezone <zone>',
      'the time zone the spend-by-day table of imported logs takes days in, an IANA name such as Europe/Paris (default: the one bench import was given, else UTC)',
    )
    .action(async (dirArg: string, opts: ReportOptions) => {
      const dir = path.resolve(dirArg);
      if (!fs.existsSync(resultFile(dir, 'runs')) && !fs.existsSync(resultFile(dir, 'steps')))
        throw new UsageError(`${dirArg}: not a results directory (no runs.jsonl or steps.jsonl)`);
      const file = opts.pricing ?? DEFAULT_PRICING_FILE;
      const priceAs = opts.priceAs === undefined ? undefined : resolvePriceAs(opts.priceAs, file);
      const flagged = opts.priceModel !== undefined || opts.priceIn !== undefined || opts.priceOut !== undefined;
      if (opts.priceCached !== undefined && opts.priceIn === undefined)
        throw new UsageError('--price-cached: only used with --price-in and --price-out');
      if (opts.pricing && !flagged && !priceAs)
        throw new UsageError('--pricing: only used with --price-model or --price-as');
      // One --price-as model is a re-priced report, as the help says; several only fill the re-pricing table.
      const price = flagged
        ? resolvePrice(opts, [], loadPricing(file))
        : priceAs?.length === 1
          ? priceAs[0]
          : undefined;
      const volumes = opts.volume === undefined ? undefined : parseVolumes(opts.volume);
      const whatIf = whatIfOf(opts.whatIf);
      if (opts.timezone !== undefined) dayIn(opts.timezone);
      const recovered = await recoverGatewayRuns(dir);
      if (recovered && 'running' in recovered)
        console.error(
          `bench: the gateway writing ${dirArg} is still running (pid ${recovered.running}): runs it has not recorded yet are not in this report`,
        );
      else if (recovered?.rebuilt)
        console.error(
          `bench: rebuilt ${recovered.rebuilt} run record(s) from steps.jsonl (the gateway, pid ${recovered.pid}, was killed before it recorded them; each is marked interrupted) and appended them to runs.jsonl`,
        );
      // Loaded here so flag errors (and every other command) do not wait for vega and resvg to load.
      const { buildReports } = await import('../report/build.ts');
      const built = await buildReports(dir, {
        priceAs,
        price,
        volumes,
        whatIf,
        ...(opts.timezone !== undefined ? { timezone: opts.timezone } : {}),
      });
      if (built.skippedStepLines > 0)
        console.error(`bench: skipped ${built.skippedStepLines} incomplete line(s) of steps.jsonl`);
      if (built.skippedRunLines > 0)
        console.error(`bench: skipped ${built.skippedRunLines} incomplete line(s) of runs.jsonl`);
      if (built.metaProblem)
        console.error(
          `bench: ${built.metaProblem} — the reports were built from the records alone (scenarios in recorded order, no import provenance${opts.timezone === undefined ? ' or time zone' : ''}, no sampling rule)`,
        );
      if (built.duplicateRuns.length) console.error(`bench: ${describeDuplicates('runs.jsonl', built.duplicateRuns)}`);
      if (!fs.existsSync(resultFile(dir, 'runs')))
        console.error(
          `bench: ${dirArg} has no runs.jsonl: built the per-step reports (steps.csv, steps_by_index.csv, fit.csv); tables of runs are empty`,
        );
      if (!opts.quiet) printSummary(built, { json: opts.json, dir });
    });
}
