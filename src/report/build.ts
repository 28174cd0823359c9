// Rebuilds every report artifact of a results directory from its records alone, so
// `bench report DIR` works on finished, interrupted and merged runs alike. steps.jsonl is read
// once, as a stream, feeding every per-step aggregate; runs.jsonl once into lean per-run facts
// (data/load-runs.ts), its whole records read again only to write them out: memory stays low for large sweeps.
import fs from 'node:fs';
import path from 'node:path';
import { readMetaChecked } from '../results/meta.ts';
import type { RunFacts, RunRecord } from '../contracts/records.ts';
import { UNKNOWN_PRICE, type Price } from '../contracts/settings.ts';
import { resultFile } from '../results/results-dir.ts';
import { writeFileAtomic } from '../results/atomic.ts';
import { CsvFileWriter, writeCsvFile } from './render/csv-file.ts';
import { passSteps, type StepPass, type StepTee } from './step-pass.ts';
import { naturalOrder, summarizeConfigs, type ConfigSummary } from './stats/aggregate.ts';
import { buildCharts } from './charts/charts.ts';
import { configColours } from './charts/colours.ts';
import {
  derivedRow,
  economicsRow,
  fitRow,
  ratioRow,
  repriceRow,
  runRow,
  savingRow,
  stepIndexLine,
  stepIndexRow,
  summaryRow,
  toCsv,
} from './render/csv.ts';
import { findings } from './findings/findings.ts';
import { overrunFindings } from './findings/overruns.ts';
import { ratioTable, stepLimitSavings } from './stats/step-limits.ts';
import { MAX_RUN_ROWS, renderHtml } from './render/html.ts';
import { loadRuns, wholeRecords, type DuplicateRun, type LoadedRun } from './data/load-runs.ts';
import { checkRunsAgainstSteps } from './data/run-steps.ts';
import { loopReports } from './loop-reports.ts';
import { renderMarkdown } from './render/markdown.ts';
import { svgToPng, toSvg } from './render/chart-images.ts';
import type { ReportData } from './render/report-data.ts';
import { repriceAll, repriceRuns, type StepCosts } from './stats/reprice.ts';
import { DEFAULT_VOLUMES, projectVolumes, type Volume } from './stats/volume.ts';
import { chosenVolume } from './findings/findings.ts';
import { configEconomics, type ConfigEconomics } from './stats/economics.ts';
import { recommendLimits } from './findings/decision.ts';
import type { DeriveRuns, WhatIfOutcome } from '../contracts/derived.ts';
import { chartPricing, describePricing } from './render/report-data.ts';
import { constraintRows, longestRoundLimit, roleRows, roundRows } from './stats/taskqueue.ts';
import { queueLengthChart } from './charts/taskqueue.ts';
import { detectorRows } from './stats/detectors.ts';
import { detectorFindings } from './findings/detectors.ts';
import { precisionOutcomes, type PrecisionOutcome } from './stats/precision.ts';
import { estimatedModels } from '../meter/token-estimate.ts';
import type { Spend } from './stats/spend.ts';

export interface BuildOptions {
  /** Prices for the re-pricing table (default: the report's prices). */
  priceAs?: Price[];
  /** Re-price every cost the reports show at this price, from the recorded tokens. */
  price?: Price;
  /** Limits to derive from the recorded trajectories (what-if), each value its own derived configuration. */
  whatIf?: DeriveRuns;
  /** Volumes to project costs for (default: DEFAULT_VOLUMES). */
  volumes?: Volume[];
  /** The time zone the spend-by-day table takes days in (an IANA name; default UTC). */
  timezone?: string;
  /** The step pass bench import fed as it wrote steps.jsonl: taken instead of reading the file when it is the same pass. */
  fed?: StepTee;
}

export interface BuiltReports {
  /** Every recorded run, without its free text (in runs.csv), in configuration order. */
  runs: LoadedRun[];
  /** Every configuration: the recorded ones and the derived (what-if) ones. */
  summary: ConfigSummary[];
  economics: ConfigEconomics[];
  /** The recommended MAX_STEPS per scenario, each a sentence with its rule: what the summary opens with. */
  decisions: string[];
  /** How the report is priced, e.g. "re-priced as gpt-4o from recorded tokens". */
  pricing: string;
  /** Lines of steps.jsonl / runs.jsonl that were not complete JSON and were skipped. */
  skippedLines: number;
  skippedStepLines: number;
  skippedRunLines: number;
  /** Run records that repeat a run id already read (not counted): the CLI says so. */
  duplicateRuns: DuplicateRun[];
  /** Why meta.json is there but was not used (damaged, unreadable): the reports were built without it. */
  metaProblem: string | null;
  findings: string[];
  /** `bench run --repeat auto`: per configuration, how many runs it took and why it stopped (empty otherwise). */
  sampling: PrecisionOutcome[];
  /** Every file written, relative to the results directory. */
  files: string[];
}

/** Derived runs, one row each, next to runs.csv. */
const WHAT_IF_RUNS_CSV = 'whatif_runs.csv';

/** The recorded prices, one per distinct price in the runs; an unknown price (imported costs) re-prices nothing. */
const recordedPrices = (runs: readonly RunFacts[]): Price[] => [
  ...new Map(
    runs
      .filter((r) => r.settings.price.model !== UNKNOWN_PRICE.model)
      .map((r) => [JSON.stringify(r.settings.price), r.settings.price]),
  ).values(),
];

/**
 * Records arrive in completion order, which concurrency changes from one run of a sweep to the next;
 * every table, sum and mean is taken over the runs in plan order instead (scenarios as planned, then
 * configurations in natural order, then repeats), so the same records always give the same reports.
 */
function inPlanOrder(runs: Array<RunFacts & { repeat: number }>, plannedScenarios: readonly string[]): void {
  const scenario = new Map([...new Set([...plannedScenarios, ...runs.map((r) => r.scenario)])].map((s, i) => [s, i]));
  const configs = [...new Set(runs.map((r) => r.config_id))].sort(naturalOrder);
  const config = new Map(configs.map((c, i) => [c, i]));
  runs.sort(
    (a, b) =>
      scenario.get(a.scenario)! - scenario.get(b.scenario)! ||
      config.get(a.config_id)! - config.get(b.config_id)! ||
      a.repeat - b.repeat,
  );
}

export async function buildReports(dir: string, o: BuildOptions = {}): Promise<BuiltReports> {
  const runsFile = resultFile(dir, 'runs');
  const { runs, skipped: skippedRuns, duplicates } = await loadRuns(runsFile);
  const { meta, problem: metaProblem } = readMetaChecked(dir);
  inPlanOrder(runs, meta?.scenarios ?? []);
  // The re-pricing table's prices and the report's, each run re-priced step by step as its steps are read.
  const tablePrices = o.priceAs ?? (o.price ? [o.price] : recordedPrices(runs));
  const runOrder = runs.map((r) => r.run_id);
  const prices = [...(o.price ? [o.price] : []), ...tablePrices];
  const timezone = o.timezone ?? meta?.imported?.timezone;
  const steps =
    (await o.fed?.take(runOrder, o.price, prices, Boolean(o.whatIf), timezone)) ??
    (await passSteps(dir, runOrder, o.price, prices, Boolean(o.whatIf), timezone));
  checkRunsAgainstSteps(path.basename(runsFile), runs, steps.sums);
  const whatIf = o.whatIf ? o.whatIf([...wholeRecords(runsFile, runs)], (id) => steps.byRun!.get(id) ?? []) : null;
  steps.byRun = null;
  const a = analyse(
    runs,
    steps,
    whatIf,
    { plannedScenarios: meta?.scenarios ?? [], imported: meta?.imported?.format ?? null, tablePrices },
    o,
  );
  // Replayed over the recorded runs at the recorded prices: what the sweep decided on, whatever --price-model says now.
  const sampling = meta?.adaptive?.rule === 'precision' ? precisionOutcomes(runs, meta.adaptive) : [];

  const out = new ReportFiles(dir);
  out.files.push(out.rel('stepsCsv'));
  const shownRuns = await writeRunsCsv(
    out,
    runsFile,
    runs,
    o.price ? new Map(a.all.map((r) => [r.run_id, r.cost_usd])) : null,
  );
  const spend = steps.spend.spend();
  writeTables(out, a, whatIf !== null);
  writeSpend(out, spend);
  const charts = await writeCharts(out, a);
  const data: ReportData = {
    name: path.basename(dir),
    meta,
    generated_at: new Date().toISOString(),
    runs: a.all,
    shownRuns,
    summary: a.summary,
    economics: a.economics,
    decisions: a.decisions,
    recommendations: a.recommendations,
    recommended: a.recommended,
    pricing: a.pricing,
    fits: a.fits,
    ratios: a.ratios,
    savings: a.savings,
    volumes: a.volumes,
    repriced: a.repriced,
    findings: a.sentences,
    charts,
    loop: a.loop,
    skipped: { steps: steps.skipped, runs: skippedRuns, duplicateRuns: duplicates.length },
    taskqueue: a.taskqueue,
    detectors: a.detectors,
    sampling,
    spend: spend.days.length ? spend : null,
  };
  out.write(out.rel('html'), renderHtml(data));
  out.write(out.rel('markdown'), renderMarkdown(data));
  return {
    runs,
    summary: a.summary,
    economics: a.economics,
    decisions: a.decisions,
    pricing: a.pricing,
    skippedLines: skippedRuns + steps.skipped,
    skippedStepLines: steps.skipped,
    skippedRunLines: skippedRuns,
    duplicateRuns: duplicates,
    metaProblem,
    findings: a.sentences,
    sampling,
    files: out.files,
  };
}

/** Every table, finding and decision the reports show, computed from the runs and the step pass (no I/O). */
function analyse(
  runs: LoadedRun[],
  steps: StepPass,
  whatIf: WhatIfOutcome | null,
  {
    plannedScenarios,
    imported,
    tablePrices,
  }: { plannedScenarios: readonly string[]; imported: string | null; tablePrices: readonly Price[] },
  o: BuildOptions,
) {
  // A derived run is its recorded run's first calls: its caching and its re-priced steps are those calls'.
  const derivedFrom = new Map((whatIf?.runs ?? []).map((r) => [r.run_id, r]));
  const stepCosts: StepCosts = (r, price, cache) => {
    const d = derivedFrom.get(r.run_id);
    return steps.repriced.cost(d ? d.derived_from_run : r.run_id, r.calls, price, cache);
  };
  // Every cost the reader reads comes from these: the recorded runs and the derived ones, at the report's price.
  const priced = <R extends RunFacts>(rs: R[]) => (o.price ? repriceAll(rs, o.price, stepCosts) : rs);
  const derivedAsRecorded = (whatIf?.runs ?? []).map((r) => ({ ...r, repeat: r.settings.repeat }));
  const asRecorded = [...runs, ...derivedAsRecorded];
  inPlanOrder(asRecorded, plannedScenarios);
  const all = priced(asRecorded);
  const derived = priced(derivedAsRecorded);
  const summary = summarizeConfigs(all, { repriced: Boolean(o.price) });
  const points = steps.points.points();
  // Steps are read in plan order, so the fits come in plan order too.
  const fits = steps.fit.fits();
  const ratios = ratioTable(summary, fits);
  const savings = stepLimitSavings(summary);
  const volumeList = o.volumes ?? DEFAULT_VOLUMES;
  const volumes = projectVolumes(summary, volumeList);
  // The re-pricing table compares with the cost as recorded, whatever the report is priced at.
  const cachedFor = (r: RunFacts) => {
    const d = derivedFrom.get(r.run_id);
    return d ? steps.cached.forPrefix(d.derived_from_run, d.calls) : steps.cached.forRun(r.run_id);
  };
  const repriced = repriceRuns(asRecorded, tablePrices, cachedFor, stepCosts);
  // One colour per configuration in every chart.
  const colours = configColours(summary);
  const loop = loopReports(all, points, steps.maxInput, colours);
  const economics = configEconomics(summary, fits);
  const volume = chosenVolume(volumeList);
  const recommendations = volume ? recommendLimits(summary, economics, volume) : [];
  const decisions = recommendations.map((r) => r.sentence);
  const recommended = recommendations.some((r) => r.max_steps !== null);
  const detectors = detectorRows(runs);
  const sentences = [
    ...overrunFindings(runs, o.price ? (r) => steps.overruns.get(r.run_id) : undefined),
    ...findings({ summary, fits, ratios, savings, volumes }),
    ...loop.findings,
    ...detectorFindings(detectors),
    ...(whatIf?.refusals ?? []),
  ];
  // The simulated model counts every model's tokens with o200k_base: for another tokenizer's model, an estimate.
  const estimated = [...new Set(all.flatMap((r) => estimatedModels(r.settings)))];
  const pricing =
    describePricing(summary, { ...(o.price ? { price: o.price } : {}), imported }) +
    (estimated.length
      ? `; the simulated model's token counts are loopbench's o200k_base count, an estimate for ${estimated.join(', ')}, whose tokenizer differs`
      : '');
  const chartPrices = chartPricing({ ...(o.price ? { price: o.price } : {}), imported });
  const taskqueue = all.some((r) => r.agent === 'taskqueue')
    ? { rounds: roundRows(all), roles: roleRows(all), constraints: constraintRows(all) }
    : null;
  // The queue-length chart follows the runs of the longest round limit only.
  const queueChartRounds = taskqueue ? roundRows(longestRoundLimit(all)) : null;
  return {
    all,
    derived,
    summary,
    points,
    fits,
    ratios,
    savings,
    volumes,
    repriced,
    colours,
    loop,
    economics,
    decisions,
    recommendations,
    recommended,
    detectors,
    sentences,
    pricing,
    chartPrices,
    taskqueue,
    queueChartRounds,
  };
}

type Analysis = ReturnType<typeof analyse>;

/** The files a report writes, each atomically, listed relative to the results directory. */
class ReportFiles {
  readonly files: string[] = [];

  constructor(readonly dir: string) {}

  rel(k: Parameters<typeof resultFile>[1]): string {
    return path.basename(resultFile(this.dir, k));
  }

  write(rel: string, data: string | Uint8Array): void {
    writeFileAtomic(path.join(this.dir, rel), data);
    this.files.push(rel);
  }

  /** A CSV file of `count` lines (toCsv's bytes, `header` the first row's), written one by one, never whole in memory. */
  writeLines(rel: string, count: number, line: (i: number) => string, header: () => Record<string, unknown>): void {
    const csv = new CsvFileWriter(path.join(this.dir, rel));
    for (let i = 0; i < count; i++) csv.addLine(line(i), header);
    csv.commit();
    this.files.push(rel);
  }
}

/**
 * runs.csv, row by row, each from its whole record read again: a 100,000-run sweep's records, rows and
 * CSV text would otherwise be held whole. Returns the first records, which the HTML's runs table shows.
 */
async function writeRunsCsv(
  out: ReportFiles,
  runsFile: string,
  runs: LoadedRun[],
  repricedCost: Map<string, number> | null,
): Promise<RunRecord[]> {
  const shownRuns: RunRecord[] = [];
  await writeCsvFile(resultFile(out.dir, 'runsCsv'), (add) => {
    let i = 0;
    for (const whole of wholeRecords(runsFile, runs)) {
      // Totals an older record lacks, as its steps gave them (data/run-steps.ts).
      const { cache_write_tokens, cache_write_1h_tokens, reasoning_tokens } = runs[i++]!;
      const r = {
        ...whole,
        cache_write_tokens,
        cache_write_1h_tokens: whole.cache_write_1h_tokens ?? cache_write_1h_tokens,
        reasoning_tokens,
      };
      add(runRow(repricedCost ? { ...r, cost_usd: repricedCost.get(r.run_id)! } : r));
      if (shownRuns.length < MAX_RUN_ROWS) shownRuns.push(r);
    }
  });
  out.files.push(out.rel('runsCsv'));
  return shownRuns;
}

function writeTables(out: ReportFiles, a: Analysis, whatIf: boolean): void {
  // A report without what-if must not leave an earlier one's derived runs beside its own tables.
  if (whatIf) out.write(WHAT_IF_RUNS_CSV, toCsv(a.derived.map(derivedRow)));
  else fs.rmSync(path.join(out.dir, WHAT_IF_RUNS_CSV), { force: true });
  out.write(
    out.rel('summaryCsv'),
    toCsv(a.summary.map((c, i) => ({ ...summaryRow(c, a.volumes), ...economicsRow(a.economics[i]!) }))),
  );
  // A row per configuration and step index: a million-step import's would be a ~100 MB string whole.
  out.writeLines(out.rel('stepIndexCsv'), a.points.length, stepIndexLine(a.points), () => stepIndexRow(a.points, 0));
  out.write(out.rel('fitCsv'), toCsv(a.fits.map(fitRow)));
  out.write(out.rel('ratiosCsv'), toCsv(a.ratios.map(ratioRow)));
  out.write(out.rel('savingsCsv'), toCsv(a.savings.map(savingRow)));
  out.write(out.rel('repriceCsv'), toCsv(a.repriced.map(repriceRow)));
  if (a.taskqueue) {
    const csv = (rows: readonly object[]) => toCsv(rows as Array<Record<string, unknown>>);
    out.write(out.rel('taskqueueRoundsCsv'), csv(a.taskqueue.rounds));
    out.write(out.rel('taskqueueRolesCsv'), csv(a.taskqueue.roles));
    out.write(out.rel('taskqueueConstraintsCsv'), csv(a.taskqueue.constraints));
  }
  for (const [name, rows] of Object.entries(a.loop.csv)) out.write(name, toCsv(rows));
  if (a.detectors.length) out.write(out.rel('spinDetectorsCsv'), toCsv(a.detectors.map((r) => ({ ...r }))));
}

/** The spend tables, for results whose calls carry their time; a report of none removes an earlier report's. */
function writeSpend(out: ReportFiles, spend: Spend): void {
  for (const [key, rows] of [
    ['spendByDayCsv', spend.days],
    ['spendByModelCsv', spend.models],
  ] as const) {
    if (rows.length) out.write(out.rel(key), toCsv(rows.map((r) => ({ ...r }))));
    else fs.rmSync(resultFile(out.dir, key), { force: true });
  }
}

/** Each chart as its Vega-Lite spec, SVG and PNG; returns them for the HTML. */
async function writeCharts(out: ReportFiles, a: Analysis) {
  const charts = [];
  const specs = [
    ...buildCharts(
      { summary: a.summary, points: a.points, fits: a.fits, runs: a.all, prices: a.chartPrices },
      a.colours,
    ),
    ...a.loop.charts,
    ...(a.queueChartRounds ? [queueLengthChart(a.queueChartRounds, a.colours)] : []),
  ];
  for (const c of specs) {
    const svg = await toSvg(c.spec);
    const stem = path.join(out.rel('charts'), c.name);
    out.write(`${stem}.vl.json`, `${JSON.stringify(c.spec, null, 2)}\n`);
    out.write(`${stem}.svg`, svg);
    out.write(`${stem}.png`, await svgToPng(svg));
    charts.push({ name: c.name, title: c.title, caption: c.caption, svg });
  }
  return charts;
}
