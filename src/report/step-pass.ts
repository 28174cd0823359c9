// The report's one pass over the steps: steps.csv written row by row and every per-step aggregate fed,
// a step at a time in plan order. buildReports reads steps.jsonl for it (passSteps), or takes the pass
// bench import fed as it wrote the file (StepTee) when that is the same pass.
import path from 'node:path';
import { readJsonlAt, readJsonlLines } from '../results/jsonl.ts';
import { stepLineParser } from '../results/step-line.ts';
import type { StepRecord } from '../contracts/records.ts';
import { UNKNOWN_PRICE, type Price } from '../contracts/settings.ts';
import { resultFile } from '../results/results-dir.ts';
import { checkStepRecord, fitsStepRecord } from '../results/record-shape.ts';
import { replayedStep, type ReplayedStep } from '../contracts/derived.ts';
import { CsvFileWriter } from './render/csv-file.ts';
import { stepLines, stepRow } from './render/csv.ts';
import { StepIndexAccumulator } from './stats/step-index.ts';
import { QuadraticFitAccumulator } from './stats/fit.ts';
import { CachedTokensEstimator, costAt, overrunAt, StepRepricer } from './stats/reprice.ts';
import { StepSums } from './data/run-steps.ts';
import { SpendAccumulator } from './stats/spend.ts';

export interface StepPass {
  skipped: number;
  /** Each run's steps in call order, the part a what-if replays, kept only for one. */
  byRun: Map<string, ReplayedStep[]> | null;
  points: StepIndexAccumulator;
  fit: QuadraticFitAccumulator;
  cached: CachedTokensEstimator;
  /** Each run's steps at the prices the report re-prices at, summed call by call (a long-context tier is a call's). */
  repriced: StepRepricer;
  /** Largest single-call input per configuration (the context report's 'largest prompt'). */
  maxInput: Map<string, number>;
  /** Per run, what its output beyond max_output_tokens cost at the report's price (re-priced reports only). */
  overruns: Map<string, number>;
  /** Each run's steps added up, as recorded: its run record is checked against them. */
  sums: StepSums;
  /** The calls that carry their time, per day and per model, in the report's prices. */
  spend: SpendAccumulator;
}

/**
 * Whether lines read in file order already come in the order the reports read them: each run's
 * lines together, the planned runs in plan order, then runs without a record in the order they
 * appear. An import writes its runs one after the other, so its steps.jsonl usually does.
 */
class PlanOrderCheck {
  /** Each planned run's place in the plan (its first, should a run id repeat). */
  private readonly position = new Map<string, number>();
  private current: string | undefined;
  /** The current run's place in the plan; past every place once the runs without a record begin. */
  private at = -1;
  /** Runs whose lines are over: one of their lines now would be out of order. */
  private readonly over = new Set<string>();

  constructor(runOrder: readonly string[]) {
    runOrder.forEach((id, i) => {
      if (!this.position.has(id)) this.position.set(id, i);
    });
  }

  /** Whether a line of run `id`, next in the file, is next in plan order too. */
  next(id: string): boolean {
    if (id === this.current) return true;
    if (this.over.has(id)) return false;
    const p = this.position.get(id) ?? Infinity;
    // A planned run after a later one, or after the runs without a record, is out of order.
    if (p < this.at) return false;
    this.at = p;
    if (this.current !== undefined) this.over.add(this.current);
    this.current = id;
    return true;
  }
}

/**
 * steps.jsonl read once in file order, streaming steps.csv out row by row and feeding every per-step
 * aggregate, as long as the file order is plan order (PlanOrderCheck). Otherwise (lines arrive in
 * completion order, which concurrency and worker threads change) that pass only notes where each
 * run's lines are (a few numbers per line), and a second pass reads them again run by run in plan
 * order: read in plan order, the same records always give the same bytes.
 */
export async function passSteps(
  dir: string,
  runOrder: readonly string[],
  price: Price | undefined,
  prices: readonly Price[],
  keepSteps: boolean,
  timezone: string | undefined,
): Promise<StepPass> {
  const file = resultFile(dir, 'steps');
  // run id → [offset, bytes, offset, bytes, …] of its lines, in file order (a run's own steps are written in order).
  const places = new Map<string, number[]>();
  const check = new PlanOrderCheck(runOrder);
  let skipped = 0;
  let first: { pass: StepPass; csv: CsvFileWriter; feed: (r: StepRecord) => void } | null = newStepPass(
    dir,
    price,
    prices,
    keepSteps,
    timezone,
  );
  try {
    for await (const line of readJsonlLines(file, stepLineParser())) {
      if (!line.ok) {
        skipped++;
        continue;
      }
      checkStepRecord(path.basename(file), line.line, line.value);
      const r = line.value as StepRecord;
      let at = places.get(r.run_id);
      if (!at) places.set(r.run_id, (at = []));
      at.push(line.offset, line.bytes);
      if (!first) continue;
      if (check.next(r.run_id)) first.feed(r);
      else {
        first.csv.abandon();
        first = null;
      }
    }
  } catch (e) {
    first?.csv.abandon();
    throw e;
  }
  if (first) {
    first.csv.commit();
    first.pass.skipped = skipped;
    return first.pass;
  }
  // Runs without a record (a crash cut them off) follow the planned ones, in the order they appear.
  const order = [...new Set([...runOrder.filter((id) => places.has(id)), ...places.keys()])];
  function* inOrder() {
    for (const id of order) {
      const at = places.get(id)!;
      for (let i = 0; i < at.length; i += 2) yield { offset: at[i]!, bytes: at[i + 1]! };
    }
  }
  const second = newStepPass(dir, price, prices, keepSteps, timezone);
  try {
    for (const value of readJsonlAt(file, inOrder(), stepLineParser())) second.feed(value as StepRecord);
  } catch (e) {
    second.csv.abandon();
    throw e;
  }
  second.csv.commit();
  second.pass.skipped = skipped;
  return second.pass;
}

/** A step's replayed part, after its run's earlier ones (what a what-if replays). */
function keepReplayed(byRun: Map<string, ReplayedStep[]>, r: StepRecord): void {
  const steps = byRun.get(r.run_id);
  if (steps) steps.push(replayedStep(r));
  else byRun.set(r.run_id, [replayedStep(r)]);
}

/** Empty aggregates, steps.csv opened, and what each step read in plan order feeds them. */
export function newStepPass(
  dir: string,
  price: Price | undefined,
  prices: readonly Price[],
  keepSteps: boolean,
  timezone: string | undefined,
) {
  const pass: StepPass = {
    skipped: 0,
    byRun: keepSteps ? new Map() : null,
    points: new StepIndexAccumulator(),
    fit: new QuadraticFitAccumulator(),
    cached: new CachedTokensEstimator(keepSteps),
    repriced: new StepRepricer(prices, keepSteps),
    maxInput: new Map(),
    overruns: new Map(),
    sums: new StepSums(),
    spend: new SpendAccumulator(timezone),
  };
  // The report's price is one the repricer sums at: a step's re-priced running cost is its run's sum so far.
  const slot = price ? pass.repriced.slot(price)! : -1;
  const csv = new CsvFileWriter(resultFile(dir, 'stepsCsv'));
  const line = stepLines();
  const feed = (r: StepRecord) => {
    if (pass.byRun) keepReplayed(pass.byRun, r);
    pass.repriced.add(r, pass.cached.add(r));
    let priced = r;
    if (price) {
      const cumulative = pass.repriced.soFar(r.run_id, slot, Boolean(r.settings.prompt_cache));
      priced = { ...r, cost_usd: costAt(price, r), cum_cost_usd: cumulative };
      if (r.output_tokens > r.settings.max_output_tokens)
        pass.overruns.set(r.run_id, (pass.overruns.get(r.run_id) ?? 0) + overrunAt(price, r));
    }
    csv.addLine(line(priced), () => stepRow(priced));
    // The cumulative-cost chart is in the report's prices, as every other cost it shows.
    pass.points.add(priced);
    // The quadratic finding is about the plain loop: a context strategy or critique calls bend the curve (the context report fits those per configuration).
    if (r.settings.context === 'full' && r.settings.reflection === 'off') pass.fit.addStep(r);
    pass.maxInput.set(r.config_id, Math.max(pass.maxInput.get(r.config_id) ?? 0, r.input_tokens));
    pass.sums.add(r);
    pass.spend.add(priced);
  };
  return { pass, csv, feed };
}

/**
 * Whether a record in memory is what its steps.jsonl line parses back to, for everything a step pass
 * reads: each value a string, a finite number other than -0, true, false, null, or a plain object or
 * array of such (JSON writes NaN as null, -0 as 0, drops undefined). Settings objects, shared by a
 * run's steps and never changed, are checked once (`checked`).
 */
function sameAsParsed(v: unknown, checked: WeakSet<object>): boolean {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(v) && !Object.is(v, -0);
    case 'object': {
      if (v === null || checked.has(v)) return true;
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) if (!sameAsParsed(v[i], checked)) return false;
        return Object.getPrototypeOf(v) === Array.prototype;
      }
      if (Object.getPrototypeOf(v) !== Object.prototype) return false;
      for (const k in v) if (!sameAsParsed((v as Record<string, unknown>)[k], checked)) return false;
      return true;
    }
    default:
      return false;
  }
}

/**
 * The step pass fed by an importer as it writes each steps.jsonl line (bench import with its
 * reports), instead of reading the ~1 KB lines back and parsing them again. buildReports takes it
 * (`take`) only when it is the pass reading the file would have made: nothing was cut back off
 * steps.jsonl (`discard`), every record is what its line parses back to and would pass
 * checkStepRecord, the runs' lines came in the final plan order, the recorded prices are the one the
 * pass re-priced at, and the report is built in the same time zone. Otherwise its steps.csv is
 * dropped and the file is read as for any report. Whether a what-if follows is known only once the
 * runs are in (its limits are the runs' observed quantiles): the pass keeps nothing per step, and a
 * what-if reads what it replays back from the file (replayFrom).
 */
export class StepTee {
  private fed: ReturnType<typeof newStepPass> | null = null;
  private valid = true;
  /** The run ids in the order their lines came, a run listed again when its lines resume after another's. */
  private readonly runs: string[] = [];
  /** The recorded price the pass re-prices at (JSON), or null for none; set at the first step, when the pass opens. */
  private priceKey: string | null = null;
  private readonly priceKeys = new WeakMap<Price, string>();
  private readonly checked = new WeakSet<object>();
  /** Whether buildReports took the pass (false: it read steps.jsonl, or has not asked yet). */
  taken = false;

  constructor(
    private readonly dir: string,
    readonly timezone: string | undefined,
  ) {}

  /** A line just written to steps.jsonl, as its record. */
  step(r: StepRecord): void {
    if (!this.valid) return;
    const settings: unknown = r.settings;
    if (typeof settings === 'object' && settings !== null && !this.checked.has(settings))
      if (sameAsParsed(settings, this.checked)) this.checked.add(settings);
    if (!fitsStepRecord(r) || !sameAsParsed(r, this.checked)) return this.drop();
    const price = r.settings.price as Price | undefined;
    if (typeof price !== 'object' || price === null) return this.drop();
    const key = this.keyOf(price);
    if (!this.fed) {
      this.priceKey = key;
      this.fed = newStepPass(this.dir, undefined, key === null ? [] : [price], false, this.timezone);
    }
    // Another recorded price: every run's steps would have had to be summed at it too, from the first.
    else if (key !== null && key !== this.priceKey) return this.drop();
    if (this.runs.at(-1) !== r.run_id) this.runs.push(r.run_id);
    this.fed.feed(r);
  }

  /** Lines were cut back off steps.jsonl (a file skipped part-way): the pass holds steps the file no longer does. */
  discard(): void {
    this.drop();
  }

  /**
   * The pass for a report of these runs (in plan order) at the recorded prices (no report `price`),
   * re-priced at these prices (none but the recorded ones), when it is the one reading steps.jsonl
   * would make, steps.csv committed; null otherwise, its steps.csv dropped. With `keepSteps` (a what-if), each run's replayed steps are read
   * back from steps.jsonl. Taken once.
   */
  async take(
    runOrder: readonly string[],
    price: Price | undefined,
    prices: readonly Price[],
    keepSteps: boolean,
    timezone: string | undefined,
  ): Promise<StepPass | null> {
    const fed = this.valid ? this.fed : null;
    this.valid = false;
    this.fed = null;
    if (!fed) return null;
    const keys = new Set(prices.map((p) => JSON.stringify(p)));
    const check = new PlanOrderCheck(runOrder);
    // The pass priced nothing at a report price (--price-model): such a report reads the file.
    const same =
      price === undefined &&
      timezone === this.timezone &&
      keys.size === (this.priceKey === null ? 0 : 1) &&
      (this.priceKey === null || keys.has(this.priceKey)) &&
      this.runs.every((id) => check.next(id));
    if (!same) {
      fed.csv.abandon();
      return null;
    }
    fed.csv.commit();
    this.taken = true;
    if (keepSteps) await replayFrom(resultFile(this.dir, 'steps'), fed.pass, prices);
    return fed.pass;
  }

  /** Drops the pass and its steps.csv (the report reads steps.jsonl instead, or none is built). */
  drop(): void {
    this.valid = false;
    this.fed?.csv.abandon();
    this.fed = null;
  }

  private keyOf(price: Price): string | null {
    if (price.model === UNKNOWN_PRICE.model) return null;
    let key = this.priceKeys.get(price);
    if (key === undefined) this.priceKeys.set(price, (key = JSON.stringify(price)));
    return key;
  }
}

/**
 * What a what-if reads beside the fed pass, read back from steps.jsonl in file order (plan order, as
 * the pass was fed): each run's replayed steps, and its cached-token estimate and re-priced sums call
 * by call, from the same records in the same order as a pass keeping them computes them.
 */
async function replayFrom(file: string, pass: StepPass, prices: readonly Price[]): Promise<void> {
  const byRun = new Map<string, ReplayedStep[]>();
  const cached = new CachedTokensEstimator(true);
  const repriced = new StepRepricer(prices, true);
  for await (const line of readJsonlLines(file, stepLineParser())) {
    if (!line.ok) continue;
    const r = line.value as StepRecord;
    keepReplayed(byRun, r);
    repriced.add(r, cached.add(r));
  }
  Object.assign(pass, { byRun, cached, repriced });
}
