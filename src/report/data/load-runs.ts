// The runs a report aggregates, read as a stream and held lean: one RunFacts per run (no free
// text), one settings object per configuration and repeated strings shared between runs, and the byte place of
// each record, so the per-run outputs (runs.csv, the HTML's runs table) read whole records again,
// one at a time. Parsed records took ~1.1 KB a run; these take ~0.3 KB.
import path from 'node:path';
import { readJsonlAt, readJsonlLines, type LinePlace } from '../../results/jsonl.ts';
import type { RunFacts, RunRecord } from '../../contracts/records.ts';
import { configKey, type ConfigSettings } from '../../contracts/settings.ts';
import { checkRunRecord } from '../../results/record-shape.ts';

export interface LoadedRun extends RunFacts {
  /** Its repeat index within the configuration (the one per-run part of its settings the report orders by). */
  repeat: number;
  /** Where the whole record is in runs.jsonl, and its line number there (for messages). */
  place: LinePlace;
  line: number;
}

export interface LoadedRuns {
  runs: LoadedRun[];
  /** Lines that were not complete JSON (a crash's partial last line, or damage). */
  skipped: number;
  /** Records whose run id an earlier line already had (files joined twice, a copy appended): not counted. */
  duplicates: DuplicateRun[];
}

export interface DuplicateRun {
  run_id: string;
  line: number;
  /** The line whose record is counted. */
  first_line: number;
}

/** `2 run record(s) repeat a run id and were not counted (line 12 repeats line 2, line 13 repeats line 3)`, for a file. */
export function describeDuplicates(file: string, d: readonly DuplicateRun[]): string {
  const shown = d.slice(0, 3).map((x) => `line ${x.line} repeats line ${x.first_line}`);
  const more = d.length > 3 ? `, and ${d.length - 3} more` : '';
  return `${file}: ${d.length} run record(s) repeat a run id already read and were not counted (${shown.join(', ')}${more})`;
}

/** Hands out one shared instance per distinct value. */
class Interner<T> {
  private readonly seen = new Map<string, T>();
  get(key: string, value: T): T {
    const hit = this.seen.get(key);
    if (hit !== undefined) return hit;
    this.seen.set(key, value);
    return value;
  }
}

export async function loadRuns(file: string): Promise<LoadedRuns> {
  const runs: LoadedRun[] = [];
  let skipped = 0;
  const duplicates: DuplicateRun[] = [];
  const lineOf = new Map<string, number>();
  const strings = new Interner<string>();
  const configs = new Interner<ConfigSettings>();
  const extras = new Interner<Record<string, unknown>>();
  const text = (s: string) => strings.get(s, s);
  for await (const line of readJsonlLines(file)) {
    if (!line.ok) {
      skipped++;
      continue;
    }
    checkRunRecord(path.basename(file), line.line, line.value);
    const r = line.value as RunRecord;
    // A run counts once, as first recorded.
    const first = lineOf.get(r.run_id);
    if (first !== undefined) {
      duplicates.push({ run_id: r.run_id, line: line.line, first_line: first });
      continue;
    }
    lineOf.set(r.run_id, line.line);
    runs.push({
      run_id: r.run_id,
      config_id: text(r.config_id),
      scenario: text(r.scenario),
      agent: text(r.agent),
      // Runs of one configuration differ only in seed and repeat: they share one settings object.
      settings: configs.get(configKey(r.settings), r.settings),
      stop_reason: text(r.stop_reason) as RunFacts['stop_reason'],
      stop_step: r.stop_step,
      steps: r.steps,
      calls: r.calls,
      rounds: r.rounds,
      input_tokens: r.input_tokens,
      output_tokens: r.output_tokens,
      cached_tokens: r.cached_tokens,
      ...(r.cache_write_tokens !== undefined ? { cache_write_tokens: r.cache_write_tokens } : {}),
      ...(r.reasoning_tokens !== undefined ? { reasoning_tokens: r.reasoning_tokens } : {}),
      cost_usd: r.cost_usd,
      elapsed_ms: r.elapsed_ms,
      success: r.success,
      // Most runs' extra is the same few fields ("reflection off, no critiques"): shared too.
      ...(r.extra ? { extra: extras.get(JSON.stringify(r.extra), r.extra) } : {}),
      repeat: r.settings.repeat,
      place: { offset: line.offset, bytes: line.bytes },
      line: line.line,
    });
  }
  return { runs, skipped, duplicates };
}

/** The whole records of `runs`, in their order, read one at a time from runs.jsonl. */
export function wholeRecords(file: string, runs: Iterable<LoadedRun>): Generator<RunRecord> {
  function* places() {
    for (const r of runs) yield r.place;
  }
  return readJsonlAt(file, places()) as Generator<RunRecord>;
}
