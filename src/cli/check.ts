// `bench check budgets.yaml`: the CI gate. Runs the sweep the budgets file describes (or reads a
// finished one with --from), judges every budget, writes junit.xml, summary.md and baseline.json
// next to the results, and exits 0 (all hold), 1 (a budget breached), 2 (usage error) or 3 (no
// breach, but a replayed cassette lacked some requests, so those scenarios were not measured).
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { buildReports } from '../report/build.ts';
import { describeDuplicates } from '../report/data/load-runs.ts';
import { loadMeta, type Meta } from '../results/meta.ts';
import { hasRecords, resultFile } from '../results/results-dir.ts';
import type { RunFacts } from '../contracts/records.ts';
import { writeFileAtomic, writeJsonAtomic } from '../results/atomic.ts';
import {
  assertComparableBaseline,
  baselineOf,
  BASELINE_MAY_DIFFER,
  loadBaseline,
  settingsOfSpec,
} from '../gate/baseline.ts';
import { settingsOf } from '../report/data/sweep-settings.ts';
import { allowHelp, parseAllow } from './diff.ts';
import { publishToGithub } from '../gate/github.ts';
import { judge } from '../gate/judge.ts';
import {
  adaptiveSweep,
  describeDesign,
  samplingOutcomes,
  unreachableBudgets,
  type SamplingOutcome,
} from '../gate/adaptive.ts';
import { junitXml } from '../gate/junit.ts';
import { loadBudgets, type LoadedBudgets } from '../gate/load-budgets.ts';
import { ALLOW_OUTSIDE_FLAG } from '../gate/named-file.ts';
import { assertSameSweep } from '../gate/same-sweep.ts';
import { checkHtmlSection, checkSummaryMd, verdictLine } from '../gate/summary-md.ts';
import { withCheckSection } from '../report/render/html.ts';
import { BREACH_EXIT, isBreach, REPLAY_MISS_EXIT, type Verdict } from '../gate/verdict.ts';
import { replayMissHint } from '../gate/replay-hint.ts';
import { isSimulated, SIM_CAVEAT } from '../gate/sim-caveat.ts';
import type { ReplayMiss } from '../contracts/chat.ts';
import type { ModelTransport } from '../models/factory.ts';
import { UsageError } from '../contracts/errors.ts';
import { addTransportOptions } from './model-options.ts';
import { groupOptions } from './help-groups.ts';
import { transportFrom, type TransportFlags } from '../runner/transport.ts';
import { addStartOptions, startSweep } from './start-sweep.ts';
import { type StartOptions } from '../runner/plan.ts';

interface CheckOptions extends StartOptions, TransportFlags {
  baseline?: string;
  allow?: string;
  from?: string;
  allowOutsideFiles?: boolean;
}

function printVerdicts(verdicts: readonly Verdict[]): void {
  const w = (f: (v: Verdict) => string) => Math.max(...verdicts.map((v) => f(v).length));
  const ws = w((v) => v.suite);
  const wn = w((v) => v.name);
  // INFO: a figure shown with no limit to judge it by (a baseline change without max_regression), never a PASS.
  for (const v of verdicts)
    console.log(
      `${v.reportOnly ? 'INFO' : v.pass ? 'PASS' : v.miss ? 'MISS' : 'FAIL'}  ${v.suite.padEnd(ws)}  ${v.name.padEnd(wn)}  ${v.measured}${v.limit === '-' ? '' : `  (limit ${v.limit})`}`,
    );
}

function printSampling(outcomes: readonly SamplingOutcome[]): void {
  if (outcomes.length === 0) return;
  const ws = Math.max(...outcomes.map((s) => s.scenario.length));
  console.log('');
  for (const s of outcomes) console.log(`RUNS  ${s.scenario.padEnd(ws)}  ${s.reason}`);
}

/** The finished results to judge (read with --from, or run now); null for a shard, which is not judged alone. */
async function resultsToJudge(
  file: string,
  loaded: LoadedBudgets,
  o: CheckOptions,
  transport: ModelTransport,
): Promise<{ dir: string; meta: Meta; runs: RunFacts[] } | null> {
  if (o.from !== undefined) {
    const dir = path.resolve(o.from);
    if (!fs.existsSync(dir) || !hasRecords(dir) || !fs.existsSync(resultFile(dir, 'meta')))
      throw new UsageError(`--from ${o.from}: not a results directory (no meta.json and runs.jsonl)`);
    // Strict: a damaged meta.json is named as damaged (file and field), not taken for a missing one.
    const meta = loadMeta(dir);
    assertSameSweep(loaded, meta, o.from);
    const built = await buildReports(dir);
    if (built.duplicateRuns.length)
      console.error(`bench: --from ${describeDuplicates(path.join(o.from, 'runs.jsonl'), built.duplicateRuns)}`);
    return { dir, meta, runs: built.runs };
  }
  const adaptive = loaded.adaptive ? { adaptive: adaptiveSweep(loaded.spec, loaded.checks, loaded.adaptive) } : {};
  const outcome = await startSweep(loaded.spec, o, process.argv.slice(2), transport, adaptive);
  if (outcome.interruptExitCode !== null) {
    // Budgets judged on part of a sweep would pass or fail on what happened to finish: not judged.
    // Adaptive batches depended on the runs before them, so such a sweep is run again, not resumed (resume.ts).
    const finish = loaded.adaptive
      ? `run the check again (the same seed takes the same runs)`
      : `finish with: bench --resume ${outcome.dir}, then bench check ${file} --from ${outcome.dir}`;
    console.error(
      `bench: interrupted: ${outcome.runsDone} of ${outcome.runsPlanned} runs finished, budgets not judged; ${finish}`,
    );
    process.exitCode = outcome.interruptExitCode;
    return null;
  }
  const meta = loadMeta(outcome.dir);
  if (meta.shard) {
    console.log(
      `shard ${meta.shard.index}/${meta.shard.count}: ${meta.runs_done} of ${meta.shard.runs_total} runs written to ${outcome.dir}`,
    );
    console.log(
      `budgets are judged on the whole sweep: bench merge the shard directories, then bench check ${file} --from MERGED`,
    );
    return null;
  }
  return { dir: outcome.dir, meta, runs: outcome.runs };
}

export function registerCheck(program: Command): void {
  const cmd = program
    .command('check')
    .description(
      'CI gate: run the sweep a budgets file describes and check every budget (exit 0 all hold, 1 a budget breached, 2 usage error, 3 nothing breached but something not measured: a replayed cassette lacks requests (re-record it), or the spend cap let no run of a scenario start)',
    )
    .argument(
      '<budgets>',
      'budgets file (YAML): scenarios with the prompt under test, model, repeats, limits, assertions — `bench init` writes a starter one (loopbench/budgets.yaml); examples/budgets.yaml in the package is annotated field by field',
    )
    .option(
      '--baseline <dir|json>',
      "compare with a previous results directory or baseline.json; fail beyond the file's max_regression",
    )
    .option(
      '--allow <kinds>',
      `with --baseline: what the baseline may differ in besides ${BASELINE_MAY_DIFFER.join(' and ')}, comma-separated: ${allowHelp}`,
    )
    .option('--from <dir>', 'judge a finished (e.g. merged) results directory instead of running the sweep')
    .option(
      ALLOW_OUTSIDE_FLAG,
      'read scenario and prompt files the budgets file names outside its own directory and the working directory (refused by default: a budgets file from a pull request could name /proc/self/environ)',
    );
  const check = 'The check:';
  groupOptions(addStartOptions(addTransportOptions(cmd)), {
    '--baseline': check,
    '--allow': check,
    '--from': check,
    [ALLOW_OUTSIDE_FLAG]: check,
  }).action(async (file: string, o: CheckOptions) => {
    const transport = transportFrom(o);
    const loaded = loadBudgets(file, transport, { allowOutsideFiles: o.allowOutsideFiles === true });
    if (loaded.adaptive && o.shard !== undefined)
      throw new UsageError(
        `--shard: ${file} has adaptive repeats, which decide after each batch on all of a scenario's runs so far; a shard holds every n-th run only, so it cannot decide, and shards deciding alone would stop at different points (give repeats a fixed count to shard)`,
      );
    // A budget no sample could pass fails after paying for every run: said now, once per budget.
    if (loaded.adaptive)
      for (const w of unreachableBudgets(loaded.checks, loaded.adaptive))
        console.error(`bench: warning: ${file}: ${w} (it will fail; raise repeats.max or bound the mean)`);
    if (o.from !== undefined && (o.shard !== undefined || o.ciMaxSpend !== undefined || o.out !== undefined))
      throw new UsageError('--from judges finished results: it does not go with --shard, --ci-max-spend or --out');
    if (o.allow !== undefined && o.baseline === undefined) throw new UsageError('--allow: only used with --baseline');
    const baseline = o.baseline === undefined ? undefined : await loadBaseline(o.baseline);
    // Before anything runs: a baseline made under other limits or repeats is no baseline for this check.
    if (baseline) assertComparableBaseline(baseline, settingsOfSpec(loaded.spec), o.baseline!, parseAllow(o.allow));

    const results = await resultsToJudge(file, loaded, o, transport);
    if (!results) return;
    const { dir, meta, runs } = results;
    const outcomes = loaded.adaptive ? samplingOutcomes(loaded.checks, runs, loaded.adaptive) : [];
    // Adaptive: a statistical budget's verdict is its sequential decision (undecided: not shown to hold).
    const sequential = loaded.adaptive
      ? {
          sequential: {
            confidence: loaded.adaptive.confidence,
            decided: new Map(outcomes.map((s) => [s.scenario, s.decided])),
          },
        }
      : {};
    const verdicts = judge(loaded.checks, runs, { baseline, spend: meta.spend, ...sequential });
    printVerdicts(verdicts);
    printSampling(outcomes);
    // Once, beside the verdicts: a pass on the sim is a statement about cost and length, not behaviour.
    const simulated = loaded.spec.grid.model.every(isSimulated);
    if (simulated) console.log(`\nNOTE  ${SIM_CAVEAT}`);
    const report = fs.readFileSync(resultFile(dir, 'markdown'), 'utf8');
    const sampling = loaded.adaptive ? { design: describeDesign(loaded.adaptive), outcomes } : undefined;
    const md = checkSummaryMd({
      budgetsFile: file,
      model: loaded.budgets.model,
      simulated,
      verdicts,
      report,
      ...(sampling ? { sampling } : {}),
    });
    writeFileAtomic(path.join(dir, 'junit.xml'), junitXml(verdicts, undefined, sampling));
    writeFileAtomic(resultFile(dir, 'markdown'), md);
    // The Actions example uploads report.html as the report: its verdict comes first there too.
    const html = resultFile(dir, 'html');
    writeFileAtomic(
      html,
      withCheckSection(
        fs.readFileSync(html, 'utf8'),
        checkHtmlSection({ budgetsFile: file, model: loaded.budgets.model, simulated, verdicts }),
      ),
    );
    writeJsonAtomic(path.join(dir, 'baseline.json'), baselineOf(runs, settingsOf(meta)));
    publishToGithub(process.env, verdicts, file, md);
    console.log(`\nbench check: ${verdictLine(verdicts)} · ${dir} (junit.xml, summary.md, baseline.json)`);
    const misses = runs.flatMap((r) => (r.extra?.replay_miss ? [r.extra.replay_miss as ReplayMiss] : []));
    if (misses.length)
      for (const line of replayMissHint({ budgetsFile: file, budgetsModel: loaded.budgets.model, misses }))
        console.error(line);
    if (verdicts.some(isBreach)) process.exitCode = BREACH_EXIT;
    else if (verdicts.some((v) => v.miss)) process.exitCode = REPLAY_MISS_EXIT;
  });
}
