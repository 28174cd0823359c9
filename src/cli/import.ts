// `bench import FILES|DIR -o OUT`: real agents' trajectories (ATIF) into a results directory, then
// the same reports a sweep gets.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { UsageError } from '../contracts/errors.ts';
import type { Price } from '../contracts/settings.ts';
import { DEFAULT_PRICING_FILE, loadPricing, priceFor } from '../meter/pricing.ts';
import { hasRecords, resultsDirFor } from '../results/results-dir.ts';
import { loadYamlFile } from '../scenario/yaml-file.ts';
import { importAtif } from '../trajectories/import-dir.ts';
import { printSummary } from './summary-table.ts';

interface ImportFlags {
  out: string;
  format: string;
  scenario?: string;
  priceModel?: string;
  pricing?: string;
  outcomes?: string;
  force?: boolean;
  json?: boolean;
}

/** session_id → success (true/false, or null for not checked). YAML or JSON: JSON is YAML. */
const Outcomes = z.record(z.string(), z.boolean().nullable());

/** Steps without cost_usd: priced as --price-model, else as the trajectory's own model when the table knows it. */
function pricing(o: ImportFlags): Price | ((model: string) => Price | undefined) {
  const file = o.pricing ?? DEFAULT_PRICING_FILE;
  const table = loadPricing(file);
  if (o.priceModel) return priceFor(table, o.priceModel, file);
  // Trajectories often name models with their provider (`openai/gpt-4o`): the table's name is the last part.
  return (model) => {
    const name = [model, model.split('/').at(-1)!].find((m) => table.models[m]);
    return name ? priceFor(table, name, file) : undefined;
  };
}

export function registerImport(program: Command): void {
  program
    .command('import')
    .description('import agent trajectories (ATIF JSON files, or folders of them) into a results directory, and build its reports')
    .argument('<paths...>', 'ATIF trajectory files (one trajectory, or an array of them, per file) or folders searched for *.json')
    .requiredOption('-o, --out <name>', 'results directory: results/<name>, or a path')
    .option('--format <format>', 'input format: atif', 'atif')
    .option('--scenario <name>', "file every run under this scenario (default: each trajectory's agent name)")
    .option('--price-model <name>', "price steps that have tokens but no cost_usd as this model (default: the trajectory's model, when the pricing table has it)")
    .option('--pricing <file>', 'pricing table (YAML, like data/pricing.yaml)')
    .option('--outcomes <file>', 'success per session_id, YAML or JSON: {"<session_id>": true|false|null}; overrides the trajectories\' extra.success')
    .option('--force', 'overwrite an existing results directory')
    .option('--json', 'print the summary as JSON on stdout')
    .action(async (inputs: string[], o: ImportFlags) => {
      if (o.format !== 'atif') throw new UsageError(`--format: '${o.format}' is not supported (accepted: atif)`);
      const out = resultsDirFor(o.out);
      if (fs.existsSync(out) && hasRecords(out)) {
        if (!o.force) throw new UsageError(`${out} already holds results (use --force to overwrite, or another --out)`);
        fs.rmSync(out, { recursive: true, force: true });
      }
      const price = pricing(o);
      const outcomes = o.outcomes ? loadYamlFile(o.outcomes, Outcomes) : undefined;
      const done = importAtif(inputs.map((p) => path.resolve(p)), out, { scenario: o.scenario, price, outcomes, command: process.argv.slice(2) });
      for (const line of done.skipped) console.error(`bench: skipped ${line}`);
      if (done.runs.length === 0) throw new UsageError(`nothing imported: ${done.skipped.length} file(s) skipped, none held a valid ATIF trajectory`);
      for (const note of done.notes) console.error(`bench: note: ${note}`);
      // Loaded here so flag errors (and every other command) do not wait for vega and resvg to load.
      const { buildReports } = await import('../report/build.ts');
      const built = await buildReports(out);
      if (!o.json) console.log(`imported ${done.runs.length} run(s), ${done.steps} agent step(s)${done.skipped.length ? `; ${done.skipped.length} file(s) skipped` : ''}`);
      printSummary(built.summary, { json: o.json, dir: out, findings: built.findings });
    });
}
