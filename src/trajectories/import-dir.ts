// `bench import`: trajectory files → a results directory (steps.jsonl, runs.jsonl, meta.json) that
// every report, `bench check --from`, `diff` and `merge` read as they read a sweep. A bad file is
// skipped with one line saying which file and field; the rest imports.
import fs from 'node:fs';
import path from 'node:path';
import type { RunRecord, StepRecord } from '../contracts/records.ts';
import type { Price } from '../contracts/settings.ts';
import { writeJsonAtomic } from '../results/atomic.ts';
import { JsonlWriter } from '../results/jsonl.ts';
import { gitCommit, versions, type Meta } from '../results/meta.ts';
import { FILES, resultFile } from '../results/results-dir.ts';
import { formatZodError } from '../scenario/yaml-file.ts';
import { AtifTrajectory } from './atif-schema.ts';
import { scenarioOrder } from './exported.ts';
import { fromAtif, modelOf, scenarioOf, type ImportedRun } from './from-atif.ts';
import { readTrajectoryFile } from './read-file.ts';

export interface ImportOptions {
  /** File every run under this scenario (default: each trajectory's agent name). */
  scenario?: string;
  /** The price for steps without cost_usd: fixed, or looked up per trajectory by its model name. */
  price?: Price | ((model: string) => Price | undefined);
  /** Success by session_id, from a side file. */
  outcomes?: Record<string, boolean | null>;
  command: string[];
}

export interface ImportOutcome {
  runs: RunRecord[];
  steps: number;
  /** One line per file that was not imported: `file: why`. */
  skipped: string[];
  /** What the import assumed, once each. */
  notes: string[];
}

/** The files under the given paths: files as given, folders searched for `*<ext>`, in name order. */
export function trajectoryFiles(inputs: readonly string[], ext = '.json'): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    const st = fs.statSync(p, { throwIfNoEntry: false });
    if (!st) return out.push(p); // reported as unreadable by the import
    if (!st.isDirectory()) return out.push(p);
    for (const e of fs.readdirSync(p).sort()) {
      const child = path.join(p, e);
      if (fs.statSync(child).isDirectory()) walk(child);
      else if (e.endsWith(ext)) out.push(child);
    }
  };
  for (const p of inputs) walk(p);
  return out;
}

/** Each file's trajectories (a file holds one, or an array of them), validated; problems as `file: why`. */
function readTrajectories(file: string): { ok: AtifTrajectory[]; error?: string } {
  let value: unknown;
  try {
    value = JSON.parse(readTrajectoryFile(file));
  } catch (e) {
    return { ok: [], error: `${file}: ${e instanceof SyntaxError ? `not JSON (${e.message})` : (e as Error).message}` };
  }
  const items = Array.isArray(value) ? value : [value];
  const ok: AtifTrajectory[] = [];
  for (const [i, item] of items.entries()) {
    const parsed = AtifTrajectory.safeParse(item);
    if (!parsed.success) return { ok: [], error: formatZodError(Array.isArray(value) ? `${file}[${i}]` : file, parsed.error) };
    ok.push(parsed.data);
  }
  return { ok };
}

function priceOf(o: ImportOptions, t: AtifTrajectory): Price | undefined {
  return typeof o.price === 'function' ? o.price(modelOf(t)) : o.price;
}

function metaFor(runs: readonly RunRecord[], order: readonly string[], o: ImportOptions, imported: NonNullable<Meta['imported']>): Meta {
  const distinct = <T>(xs: T[]) => [...new Set(xs)];
  const first = runs[0]!.settings;
  const now = new Date().toISOString();
  return {
    tool: 'loopbench',
    version: versions().loopbench!,
    status: 'complete',
    created_at: now,
    finished_at: now,
    command: o.command,
    // A loopbench export names its sweep's order; other scenarios follow in the order first met.
    scenarios: distinct([...order.filter((s) => runs.some((r) => r.scenario === s)), ...runs.map((r) => r.scenario)]),
    grid: {
      model: distinct(runs.map((r) => r.settings.model)),
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
    fixed: { price: first.price, prompt_cache: false, max_output_tokens: first.max_output_tokens, max_reflections: first.max_reflections },
    repeat: Math.max(...runs.map((r) => r.settings.repeat)),
    seed: 0,
    runs_planned: runs.length,
    runs_done: runs.length,
    versions: versions(),
    git_commit: gitCommit(),
    imported,
  };
}

/** Where trajectories come from: per file, its trajectories, or why none could be read. */
export type TrajectorySource = Iterable<{ ok: AtifTrajectory[]; error?: string }>;

/** ATIF files: each read, parsed and validated on its own, so a bad one is skipped, not fatal. */
export function atifSource(files: readonly string[]): TrajectorySource {
  return files.map(readTrajectories);
}

/** Imports trajectories into `dir` (which must not hold records yet). */
export function importTrajectories(source: TrajectorySource, files: readonly string[], format: string, dir: string, o: ImportOptions): ImportOutcome {
  const skipped: string[] = [];
  const notes = new Set<string>();
  const imported: ImportedRun[] = [];
  const repeats = new Map<string, number>();
  const seen = new Set<string>();
  const order: string[] = [];
  for (const read of source) {
    if (read.error) skipped.push(read.error);
    for (const t of read.ok) {
      if (order.length === 0) order.push(...scenarioOrder(t));
      const config = `${scenarioOf(t, o)}\u0000${modelOf(t)}`;
      const repeat = (repeats.get(config) ?? 0) + 1;
      const outcome = o.outcomes?.[t.session_id];
      const run = fromAtif(t, { scenario: o.scenario, price: priceOf(o, t), repeat, ...(outcome !== undefined ? { success: outcome } : {}) });
      if (seen.has(run.run.run_id)) {
        skipped.push(`session_id '${t.session_id}' appears twice (run ${run.run.run_id}): the second is skipped`);
        continue;
      }
      seen.add(run.run.run_id);
      repeats.set(config, repeat);
      imported.push(run);
      for (const n of run.notes) notes.add(n);
    }
  }
  if (imported.length > 0) writeRecords(dir, imported, metaFor(imported.map((r) => r.run), order, o, { format, files: files.length, skipped: skipped.length, notes: [...notes] }));
  return { runs: imported.map((r) => r.run), steps: imported.reduce((n, r) => n + r.steps.length, 0), skipped, notes: [...notes] };
}

function writeRecords(dir: string, runs: readonly ImportedRun[], meta: Meta): void {
  fs.mkdirSync(dir, { recursive: true });
  for (const f of [FILES.steps, FILES.runs]) fs.rmSync(path.join(dir, f), { force: true });
  const steps = new JsonlWriter(resultFile(dir, 'steps'));
  const records = new JsonlWriter(resultFile(dir, 'runs'));
  try {
    for (const r of runs) {
      for (const s of r.steps as StepRecord[]) steps.write(s);
      records.write(r.run);
    }
  } finally {
    steps.close();
    records.close();
  }
  writeJsonAtomic(resultFile(dir, 'meta'), meta);
}
