// Where every importer (ATIF, chat logs, message lists, OTLP) writes: steps.jsonl and runs.jsonl as
// the runs come, and meta.json at the end from a few running aggregates, so an import holds no run
// or step once written. A run found bad part-way through its file is taken back out of steps.jsonl
// (the file is cut back to where that run began), so a skipped file leaves nothing behind.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { RunRecord, StepRecord } from '../contracts/records.ts';
import type { Settings } from '../contracts/settings.ts';
import { writeJsonAtomic } from '../results/atomic.ts';
import { JsonlWriter } from '../results/jsonl.ts';
import { gitCommit, versions, type Meta } from '../results/meta.ts';
import { FILES, resultFile } from '../results/results-dir.ts';
import { writeStepLine } from '../results/step-line.ts';

/** A record's identity for telling duplicates from trials: a hash of its JSON. */
export function identityOf(record: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(record) ?? '')
    .digest('hex');
}

export interface ImportOutcome {
  runs: number;
  steps: number;
  /** One line per file (or record) that was not imported: `where: why`. */
  skipped: string[];
  /** What the input says that cannot be right, one line per file and kind: `file: what`. */
  problems: string[];
  /** What the import assumed, once each. */
  notes: string[];
}

/** Where steps.jsonl stood (bytes and lines) when a file began: what `discard` cuts it back to. */
export interface RunMark {
  bytes: number;
  lines: number;
}

/**
 * Who else takes each step line as it is written (bench import's reports, their step pass fed without
 * reading steps.jsonl back), and is told when lines are cut back off.
 */
export interface StepWatcher {
  step(s: StepRecord): void;
  discard(): void;
}

export class ImportSink {
  private readonly steps: JsonlWriter;
  private readonly runs: JsonlWriter;
  private readonly skippedLines: string[] = [];
  private readonly problemLines: string[] = [];
  private readonly noteSet = new Set<string>();
  private readonly seen = new Set<string>();
  /** Per run id met: the identities (hashes) of the records kept under it. */
  private readonly identities = new Map<string, Set<string>>();
  private trials = 0;
  private firstTrial = '';
  private duplicates = 0;
  private readonly repeats = new Map<string, number>();
  private readonly scenarios: string[] = [];
  private readonly models = new Set<string>();
  private order: string[] = [];
  private first: Settings | null = null;
  private maxRepeat = 0;
  private runCount = 0;
  private stepCount = 0;

  constructor(
    private readonly dir: string,
    private readonly watcher?: StepWatcher,
  ) {
    fs.mkdirSync(dir, { recursive: true });
    for (const f of [FILES.steps, FILES.runs]) fs.rmSync(path.join(dir, f), { force: true });
    this.steps = new JsonlWriter(resultFile(dir, 'steps'));
    this.runs = new JsonlWriter(resultFile(dir, 'runs'));
  }

  /** The next repeat index of a configuration (plan order for the reports); taken when the run is kept. */
  nextRepeat(config: string): number {
    return (this.repeats.get(config) ?? 0) + 1;
  }

  /** Whether a run id is already imported. */
  has(runId: string): boolean {
    return this.seen.has(runId);
  }

  /**
   * A run's id and its record's identity (a hash of its bytes): the id to keep it under, or null when
   * an identical record was kept already (a duplicate, dropped). A repeated id with a different record
   * is another trial of the same task (τ-bench runs each task several times): kept, numbered
   * `<id>.trial2`, `.trial3` …
   */
  claim(runId: string, identity: string): string | null {
    const kept = this.identities.get(runId);
    if (!kept) {
      this.identities.set(runId, new Set([identity]));
      return runId;
    }
    if (kept.has(identity)) {
      this.duplicates++;
      return null;
    }
    kept.add(identity);
    let id = `${runId}.trial${kept.size}`;
    // A trial name taken by a record's own id: the next free one.
    for (let n = kept.size + 1; this.identities.has(id) || this.seen.has(id); n++) id = `${runId}.trial${n}`;
    this.identities.set(id, new Set([identity]));
    this.trials++;
    this.firstTrial ||= id;
    return id;
  }

  /** The scenario order of a loopbench export (its meta.json's), when the first run carries one. */
  scenarioOrder(order: readonly string[]): void {
    if (this.order.length === 0) this.order = [...order];
  }

  /** Runs begin: the place to cut steps.jsonl back to if they are dropped. */
  begin(): RunMark {
    this.steps.flush();
    return { bytes: fs.statSync(this.steps.file).size, lines: this.stepCount };
  }

  step(s: StepRecord): void {
    writeStepLine(this.steps, s);
    this.stepCount++;
    this.watcher?.step(s);
  }

  /** The run is complete: its record is written and counted. */
  commit(run: RunRecord, config: string, notes: readonly string[] = []): void {
    this.runs.write(run);
    this.seen.add(run.run_id);
    this.repeats.set(config, this.nextRepeat(config));
    if (!this.scenarios.includes(run.scenario)) this.scenarios.push(run.scenario);
    this.models.add(run.settings.model);
    this.first ??= run.settings;
    this.maxRepeat = Math.max(this.maxRepeat, run.settings.repeat);
    this.runCount++;
    for (const n of notes) this.noteSet.add(n);
  }

  /** The runs begun at `mark` are dropped: their step lines are cut off again. */
  discard(mark: RunMark): void {
    this.steps.flush();
    fs.truncateSync(this.steps.file, mark.bytes);
    this.stepCount = mark.lines;
    this.watcher?.discard();
  }

  skip(line: string): void {
    this.skippedLines.push(line);
  }

  problem(line: string): void {
    this.problemLines.push(line);
  }

  note(n: string): void {
    this.noteSet.add(n);
  }

  get imported(): number {
    return this.runCount;
  }

  /** Closes the record files and writes meta.json (when anything was imported). */
  finish(format: string, files: number, o: { command: readonly string[]; timezone?: string }): ImportOutcome {
    this.steps.close();
    this.runs.close();
    if (this.trials)
      this.noteSet.add(
        `${this.trials} run(s) share an id with an earlier one but differ from it: each is kept as another trial of the same task, numbered <id>.trial2, .trial3 … (the first: ${this.firstTrial})`,
      );
    if (this.duplicates)
      this.noteSet.add(
        `${this.duplicates} record(s) identical to one already imported: dropped as duplicates, each run counted once`,
      );
    const notes = [...this.noteSet];
    if (this.runCount > 0)
      writeJsonAtomic(
        resultFile(this.dir, 'meta'),
        this.meta(o.command, {
          format,
          files,
          skipped: this.skippedLines.length,
          notes,
          ...(o.timezone !== undefined ? { timezone: o.timezone } : {}),
        }),
      );
    return {
      runs: this.runCount,
      steps: this.stepCount,
      skipped: this.skippedLines,
      problems: this.problemLines,
      notes,
    };
  }

  private meta(command: readonly string[], imported: NonNullable<Meta['imported']>): Meta {
    const now = new Date().toISOString();
    const first = this.first!;
    return {
      tool: 'loopbench',
      version: versions().loopbench!,
      status: 'complete',
      created_at: now,
      finished_at: now,
      command: [...command],
      // A loopbench export names its sweep's order; other scenarios follow in the order first met.
      scenarios: [...new Set([...this.order.filter((s) => this.scenarios.includes(s)), ...this.scenarios])],
      grid: {
        model: [...this.models],
        max_steps: [null],
        max_cost_usd: [null],
        timeout_s: [null],
        max_repeat: [null],
        max_tokens: [null],
        max_calls: [null],
        max_rounds: [null],
        reflection: ['off'],
        context: ['full'],
        agent: {},
      },
      fixed: {
        price: first.price,
        prompt_cache: false,
        max_output_tokens: first.max_output_tokens,
        max_reflections: first.max_reflections,
      },
      repeat: this.maxRepeat,
      seed: 0,
      runs_planned: this.runCount,
      runs_done: this.runCount,
      versions: versions(),
      git_commit: gitCommit(),
      imported,
    };
  }
}
