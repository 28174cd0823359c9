// `bench import FILES|DIR -o OUT`: real agents' trajectories (ATIF) into a results directory, then
// the same reports a sweep gets.
import fs from 'node:fs';
import type { Command } from 'commander';
import { z } from 'zod';
import { UsageError } from '../contracts/errors.ts';
import type { Price } from '../contracts/settings.ts';
import { DEFAULT_PRICING_FILE, loadPricing } from '../meter/pricing.ts';
import { findPrice } from '../meter/model-price.ts';
import { resolvePrice } from '../runner/plan.ts';
import { hasRecords, resultFile, resultsDirFor } from '../results/results-dir.ts';
import { loadYamlFile } from '../scenario/yaml-file.ts';
import {
  importAtif,
  importMessages,
  importTrajectories,
  trajectoryFiles,
  type ImportOptions,
  type ImportOutcome,
} from '../trajectories/import-dir.ts';
import { chatLogTrajectories } from '../trajectories/chatlog.ts';
import { toolSpecs, Tools, type MessagesFormat } from '../trajectories/messages.ts';
import { importOtlp } from '../trajectories/otlp-import.ts';
import { parseOne as one } from '../runner/values.ts';
import { readTrajectoryFile } from '../trajectories/read-file.ts';
import { detectLogFormat, importAgentLogs, LOG_FORMATS } from '../trajectories/agent-logs/import-logs.ts';
import type { LogFormat } from '../trajectories/agent-logs/session-run.ts';
import { dataPath } from '../contracts/paths.ts';
import { collect, whatIfFor, whatIfOf } from './report.ts';
import { OBSERVED_QUANTILES, observedLimits } from '../whatif/observed-limits.ts';
import { readJsonl } from '../results/jsonl.ts';
import type { RunRecord } from '../contracts/records.ts';
import { dayIn } from '../report/stats/spend.ts';
import { printSummary } from './summary-table.ts';

interface ImportFlags {
  out: string;
  timezone?: string;
  format?: string;
  groupBy?: string;
  scenario?: string;
  priceModel?: string;
  priceIn?: string;
  priceOut?: string;
  priceCached?: string;
  pricing?: string;
  outcomes?: string;
  force?: boolean;
  json?: boolean;
  report: boolean;
  /** The --what-if values, or false for --no-what-if. */
  whatIf?: string[] | false;
  skipBad?: boolean;
  messagesField: string;
  idField: string;
  successField?: string;
  successMin?: string;
  toolsField?: string;
  tools?: string;
  model?: string;
}

const FORMATS = ['atif', 'chatlog', 'messages', 'otlp', ...LOG_FORMATS] as const;
type Format = (typeof FORMATS)[number];

/** Flags that belong to one format (given with another, they are a usage error, not silently ignored). */
const FORMAT_FLAGS: Record<string, { format: Format; flag: string }> = {
  groupBy: { format: 'chatlog', flag: '--group-by' },
  successField: { format: 'messages', flag: '--success-field' },
  successMin: { format: 'messages', flag: '--success-min' },
  toolsField: { format: 'messages', flag: '--tools-field' },
  tools: { format: 'messages', flag: '--tools' },
  model: { format: 'messages', flag: '--model' },
};

/** A message list's fields and model, from the flags. */
function messagesFormat(o: ImportFlags, price: ReturnType<typeof pricing>): MessagesFormat {
  if (!o.model)
    throw new UsageError(
      '--format messages needs --model NAME: the model the conversations ran against, whose tokenizer counts them and whose price bills them',
    );
  if (typeof price === 'function' && !price(o.model))
    throw new UsageError(
      `--model ${o.model}: not in the pricing table (give its rates with --price-in/--price-out, or --price-model NAME)`,
    );
  if (o.successMin !== undefined && !o.successField)
    throw new UsageError('--success-min: only with --success-field (the field it is compared with)');
  if (o.tools && o.toolsField)
    throw new UsageError(
      '--tools and --tools-field: one or the other (the same tools for every record, or a field of each)',
    );
  const successMin = o.successMin === undefined ? undefined : one(o.successMin, '--success-min', {});
  const tools = o.tools ? toolSpecs(loadYamlFile(o.tools, Tools)) : undefined;
  return {
    messagesField: o.messagesField,
    idField: o.idField,
    successField: o.successField,
    successMin,
    toolsField: o.toolsField,
    tools,
    model: o.model,
    agent: o.scenario ?? 'messages',
  };
}

/** session_id → success (true/false, or null for not checked). YAML or JSON: JSON is YAML. */
const Outcomes = z.record(z.string(), z.boolean().nullable());

/** Steps without cost_usd: priced by the pricing flags as bench run reads them, else as the trajectory's own model when the table knows it. */
export function pricing(
  o: Pick<ImportFlags, 'pricing' | 'priceCached' | 'priceIn' | 'priceOut' | 'priceModel'>,
): Price | ((model: string) => Price | undefined) {
  const file = o.pricing ?? DEFAULT_PRICING_FILE;
  const table = loadPricing(file);
  if (o.priceCached !== undefined && o.priceIn === undefined)
    throw new UsageError('--price-cached: only used with --price-in and --price-out');
  if (o.priceModel !== undefined || o.priceIn !== undefined || o.priceOut !== undefined)
    return resolvePrice(o, [], table);
  // Trajectories name models with their provider (`openai/gpt-4o`) or a snapshot date: meter/model-price.ts reads every spelling.
  return (model) => findPrice(table, model, file);
}

/** Chat logs are read whole first: one run's calls may be spread over several files. */
function importChatLogs(paths: string[], groupBy: string, out: string, options: ImportOptions): ImportOutcome {
  const found = trajectoryFiles(paths, '.jsonl');
  const unreadable = [...found.unreadable];
  const texts = found.files.flatMap((file) => {
    try {
      return [{ file, text: readTrajectoryFile(file) }];
    } catch (e) {
      unreadable.push(`${file}: ${(e as Error).message}`);
      return [];
    }
  });
  const read = chatLogTrajectories(texts, groupBy, options.scenario ?? 'chatlog');
  const done = importTrajectories(read.trajectories, 'chatlog', found.files.length, out, options);
  return { ...done, skipped: [...unreadable, ...read.skipped, ...done.skipped] };
}

export function registerImport(program: Command): void {
  program
    .command('import')
    .description(
      'import agent trajectories (ATIF files, OpenAI-format chat logs, message-list dumps, OpenTelemetry GenAI spans, or Claude Code / Codex CLI session logs) into a results directory, and build its reports',
    )
    .argument(
      '<paths...>',
      'ATIF files (one trajectory, or an array of them, per file) or folders searched for *.json; with --format chatlog, .jsonl files or folders of them; with --format messages or otlp, .jsonl or .json files or folders of them; with --format claude-code or codex, session logs (.jsonl) or folders of them (~/.claude/projects, $CODEX_HOME/sessions)',
    )
    .requiredOption('-o, --out <name>', 'results directory: results/<name>, or a path')
    .option(
      '--format <format>',
      'input format: atif (trajectory JSON files), chatlog (OpenAI-format JSON lines, one model call each: request/response pairs, or bench serve --log lines), messages (one conversation per record: its final OpenAI-format message list and its outcome), otlp (OpenTelemetry GenAI spans: OTLP/JSON files, one request per file or one per line, told apart by content whatever the file is named), claude-code (Claude Code session logs: one run per session, sub-agents as runs of their own) or codex (Codex CLI rollout logs: one run per session). Default: claude-code or codex when the first .jsonl file found is one of their logs, else atif',
    )
    .option(
      '--group-by <field>',
      "chatlog: the field whose value names a call's run, a dotted path (e.g. metadata.run_id)",
    )
    .option(
      '--messages-field <field>',
      "messages: the field holding each record's message list, a dotted path (e.g. traj, history)",
      'messages',
    )
    .option('--id-field <field>', 'messages: the field naming each conversation', 'id')
    .option(
      '--success-field <field>',
      'messages: the outcome field: a boolean, or a number compared with --success-min (e.g. reward)',
    )
    .option('--success-min <n>', 'messages: a numeric outcome at or above this counts as a success')
    .option('--tools-field <field>', 'messages: the field holding the tool definitions each conversation sent')
    .option('--tools <file>', 'messages: the tool definitions every conversation sent (JSON or YAML, OpenAI format)')
    .option(
      '--model <name>',
      'messages: the model the conversations ran against (its price from the pricing table; tokens counted with o200k_base)',
    )
    .option('--scenario <name>', "file every run under this scenario (default: each trajectory's agent name)")
    .option(
      '--price-model <name>',
      "price steps that have tokens but no cost_usd as this model (default: the trajectory's model, when the pricing table has it)",
    )
    .option(
      '--price-in <usd>',
      'price steps without cost_usd at a custom input price, USD per 1M tokens (with --price-out)',
    )
    .option('--price-out <usd>', 'custom output price, USD per 1M tokens (with --price-in)')
    .option('--price-cached <usd>', 'custom cached-input price, USD per 1M tokens (default: the input price)')
    .option('--pricing <file>', 'pricing table (YAML, like data/pricing.yaml)')
    .option(
      '--outcomes <file>',
      'success per session_id (otlp: per gen_ai.conversation.id or trace id), YAML or JSON: {"<session_id>": true|false|null}; overrides the trajectories\' own',
    )
    .option('--force', 'overwrite an existing results directory')
    .option('--json', 'print the summary as JSON on stdout')
    .option(
      '--what-if <limit=values>',
      `with the reports: derive runs under these limits from the imported steps, as bench report --what-if does (repeatable; e.g. steps=5..30:5). Without it the reports derive step and cost limits at the runs' observed p${OBSERVED_QUANTILES.join('/p')}, and recommend one`,
      collect,
    )
    .option('--no-what-if', 'derive no runs under other limits (no recommended limit in the reports)')
    .option(
      '--skip-bad',
      'import what can be read and exit 0 even when files, lines, records or spans were skipped (without it, any skip makes the import exit 2 after writing what it read)',
    )
    .option(
      '--no-report',
      'write the records only (steps.jsonl, runs.jsonl, meta.json); build the reports later with bench report OUT',
    )
    .option(
      '--timezone <zone>',
      'the time zone the spend-by-day table of imported logs takes days in, an IANA name such as Europe/Paris (default: UTC); kept in meta.json, so later reports of OUT use it too',
    )
    .action(async (inputs: string[], o: ImportFlags) => {
      o.format ??= detectLogFormat(trajectoryFiles(inputs, '.jsonl')) ?? 'atif';
      if (!(FORMATS as readonly string[]).includes(o.format))
        throw new UsageError(`--format: '${o.format}' is not supported (accepted: ${FORMATS.join(', ')})`);
      for (const [key, { format, flag }] of Object.entries(FORMAT_FLAGS))
        if (o[key as keyof ImportFlags] !== undefined && o.format !== format)
          throw new UsageError(
            `${flag}: only for --format ${format}${o.format === 'atif' && key === 'groupBy' ? ' (an ATIF file is one run already)' : ''}`,
          );
      if (o.format === 'chatlog' && !o.groupBy)
        throw new UsageError(
          '--format chatlog needs --group-by FIELD: the field that says which run each call belongs to',
        );
      if (o.whatIf && !o.report)
        throw new UsageError(
          '--what-if: goes into the reports, which --no-report leaves out (run bench report OUT --what-if … later)',
        );
      if (o.timezone !== undefined) dayIn(o.timezone);
      const out = resultsDirFor(o.out);
      if (fs.existsSync(out) && hasRecords(out)) {
        if (!o.force) throw new UsageError(`${out} already holds results (use --force to overwrite, or another --out)`);
        fs.rmSync(out, { recursive: true, force: true });
      }
      const logs = (LOG_FORMATS as readonly string[]).includes(o.format);
      // Session logs name the provider's models: priced from the LiteLLM map unless told otherwise.
      const price = pricing(logs ? { ...o, pricing: o.pricing ?? dataPath('litellm-prices.json') } : o);
      const messages = o.format === 'messages' ? messagesFormat(o, price) : undefined;
      const outcomes = o.outcomes ? loadYamlFile(o.outcomes, Outcomes) : undefined;
      // The reports' step pass, fed as each step line is written: steps.jsonl is not read back for it.
      const tee = o.report ? new (await import('../report/step-pass.ts')).StepTee(out, o.timezone) : undefined;
      try {
        const options = {
          scenario: o.scenario,
          price,
          outcomes,
          command: process.argv.slice(2),
          ...(o.timezone !== undefined ? { timezone: o.timezone } : {}),
          ...(tee ? { steps: tee } : {}),
        };
        // Paths as given: skipped files are named as the user wrote them.
        const done =
          o.format === 'atif'
            ? importAtif(trajectoryFiles(inputs), out, options)
            : o.format === 'messages'
              ? importMessages(trajectoryFiles(inputs, ['.jsonl', '.json']), out, messages!, options)
              : o.format === 'otlp'
                ? importOtlp(trajectoryFiles(inputs, ['.jsonl', '.json']), out, options)
                : logs
                  ? importAgentLogs(o.format as LogFormat, trajectoryFiles(inputs, '.jsonl'), out, options)
                  : importChatLogs(inputs, o.groupBy!, out, options);
        for (const line of done.skipped) console.error(`bench: skipped ${line}`);
        for (const line of done.problems) console.error(`bench: ${line}`);
        if (done.runs === 0)
          throw new UsageError(
            `nothing imported: ${done.skipped.length} file(s) or line(s) skipped, none held a valid ${{ atif: 'ATIF trajectory', chatlog: 'model call', messages: 'conversation', otlp: 'GenAI chat span', 'claude-code': 'Claude Code session with a model call', codex: 'Codex session with a model call' }[o.format as Format]}`,
          );
        for (const note of done.notes) console.error(`bench: note: ${note}`);
        const skipped = done.skipped.length
          ? `; ${done.skipped.length} ${{ atif: 'file(s)', chatlog: 'line(s)', messages: 'record(s) or file(s)', otlp: 'file(s), line(s), span(s) or trace(s)', 'claude-code': 'file(s) or line(s)', codex: 'file(s) or line(s)' }[o.format as Format]} skipped (each named above: file, line, field)`
          : '';
        const summary = `imported ${done.runs} run(s), ${done.steps} agent step(s)${skipped}`;
        // Anything skipped is input lost: said in the exit code unless the user accepts it.
        const incomplete = () => {
          if (!done.skipped.length || o.skipBad) return;
          console.error(
            `bench: the import is incomplete: ${done.skipped.length} part(s) of the input were skipped (listed above); the rest is in ${out}. Exit 2; --skip-bad accepts the rest and exits 0`,
          );
          process.exitCode = 2;
        };
        if (!o.report) {
          console.log(
            o.json
              ? JSON.stringify({ dir: out, runs: done.runs, steps: done.steps, skipped: done.skipped.length })
              : `${summary}; records in ${out} (reports: bench report ${out})`,
          );
          return incomplete();
        }
        const whatIf =
          o.whatIf === false ? undefined : o.whatIf ? whatIfOf(o.whatIf) : await observedWhatIf(out, o.json);
        // Loaded here so flag errors (and every other command) do not wait for vega and resvg to load.
        const { buildReports } = await import('../report/build.ts');
        const built = await buildReports(out, { whatIf, ...(tee ? { fed: tee } : {}) });
        if (!o.json) console.log(summary);
        printSummary(built, { json: o.json, dir: out });
        incomplete();
      } finally {
        // Any way out before the reports took it (nothing imported, an error): its steps.csv is not left half-written.
        tee?.drop();
      }
    });
}

/** The what-if an import gets by default: limits at the observed quantiles of the runs imported from other tools (src/whatif/observed-limits.ts). */
async function observedWhatIf(out: string, quiet: boolean | undefined) {
  const { records } = await readJsonl<RunRecord>(resultFile(out, 'runs'));
  // A loopbench export comes back as its sweep, with the limits it ran under: its reports stay the sweep's.
  const requests = observedLimits(records.filter((r) => r.extra?.imported !== undefined));
  if (!quiet && requests.length)
    console.error(
      `bench: note: what-if at the runs' observed p${OBSERVED_QUANTILES.join('/p')}: ${requests.map((r) => `${r.name}=${r.values.join(',')}`).join(' ')} (choose others with --what-if, none with --no-what-if)`,
    );
  return whatIfFor(requests);
}
