// `bench import`: trajectory files → a results directory (steps.jsonl, runs.jsonl, meta.json) that
// every report, `bench check --from`, `diff` and `merge` read as they read a sweep. A bad file is
// skipped with one line saying which file and field; the rest imports. Files are streamed (two passes
// over each ATIF file, one step in memory at a time), so their size bounds the time, not the memory.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Price } from '../contracts/settings.ts';
import { AtifFileError, readAtifHeaders, readAtifSteps, type AtifFileItem, type AtifItem } from './atif-stream.ts';
import type { AtifTrajectory } from './atif-schema.ts';
import { scenarioOrder } from './exported.ts';
import { AtifRunBuilder, modelOf, scenarioOf } from './from-atif.ts';
import { identityOf, ImportSink, type ImportOutcome, type StepWatcher } from './import-sink.ts';
import { forEachJsonLine, isJsonLines, JsonStreamError, streamJsonFile, type StreamOptions } from './json-stream.ts';
import { messagesTrajectory, type MessagesFormat } from './messages.ts';
import { valueAt } from './chatlog.ts';
import { TokenCounter } from '../meter/tokens.ts';

export type { ImportOutcome } from './import-sink.ts';

export interface ImportOptions {
  /** File every run under this scenario (default: each trajectory's agent name). */
  scenario?: string;
  /** The price for steps without cost_usd: fixed, or looked up per trajectory by its model name. */
  price?: Price | ((model: string) => Price | undefined);
  /** Success by session_id, from a side file. */
  outcomes?: Record<string, boolean | null>;
  command: string[];
  /** The time zone the reports take days in (`--timezone`), kept in meta.json for every later `bench report`. */
  timezone?: string;
  /** Bounds on what is read at once (tests shrink them to show the import streams). */
  stream?: StreamOptions;
  /** Takes each step line as it is written (the reports' step pass). */
  steps?: StepWatcher;
}

/** The files under the given paths, and one line for each path that could not be searched. */
export interface FoundFiles {
  files: string[];
  /** `path: why` — a symlink loop, a folder that cannot be read — each skipped, the rest searched. */
  unreadable: string[];
}

/**
 * The files under the given paths: files as given, folders searched for `*<ext>` in name order. A
 * symlink loop or an unreadable entry is one line and the search goes on; a folder reached twice (a
 * link back up the tree) is searched once.
 */
export function trajectoryFiles(inputs: readonly string[], ext: string | readonly string[] = '.json'): FoundFiles {
  const exts = typeof ext === 'string' ? [ext] : ext;
  const files: string[] = [];
  const unreadable: string[] = [];
  const searched = new Set<string>();
  const why = (e: unknown) => {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ELOOP' ? 'a symlink loop (ELOOP): skipped' : `cannot read (${code ?? String(e)}): skipped`;
  };
  const walk = (p: string, given: boolean) => {
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(p, { throwIfNoEntry: false });
    } catch (e) {
      return void unreadable.push(`${p}: ${why(e)}`);
    }
    // A path given that does not exist is reported by the import, as unreadable.
    if (!st) return void (given ? files.push(p) : unreadable.push(`${p}: a dangling symlink: skipped`));
    if (!st.isDirectory()) return void ((given || exts.some((e) => p.endsWith(e))) && files.push(p));
    const id = `${st.dev}:${st.ino}`;
    if (searched.has(id)) {
      if (!given) unreadable.push(`${p}: a symlink back to a folder already searched (a loop): skipped`);
      return;
    }
    searched.add(id);
    let entries: string[];
    try {
      entries = fs.readdirSync(p).sort();
    } catch (e) {
      return void unreadable.push(`${p}: ${why(e)}`);
    }
    for (const e of entries) walk(path.join(p, e), false);
  };
  for (const p of inputs) walk(p, true);
  return { files, unreadable };
}

function priceOf(o: ImportOptions, model: string): Price | undefined {
  return typeof o.price === 'function' ? o.price(model) : o.price;
}

/** A trajectory's run, fed its steps one by one. */
function builderFor(
  sink: ImportSink,
  item: AtifItem,
  o: ImportOptions,
  pending?: Map<string, number>,
): { builder: AtifRunBuilder; config: string } {
  const t = item.header;
  const model = modelOf(t, item.firstStepModel);
  const config = `${scenarioOf(t, o)}\u0000${model}`;
  const outcome = o.outcomes?.[t.session_id];
  // A file's runs are committed at its end: its earlier runs of the same configuration count ahead.
  const ahead = pending?.get(config) ?? 0;
  pending?.set(config, ahead + 1);
  const builder = new AtifRunBuilder(t, {
    scenario: o.scenario,
    price: priceOf(o, model),
    repeat: sink.nextRepeat(config) + ahead,
    firstStepModel: item.firstStepModel,
    ...(outcome !== undefined ? { success: outcome } : {}),
  });
  return { builder, config };
}

/** A step or run record under the id its run is kept as (another trial's: see ImportSink.claim). */
const as = <T extends { run_id: string }>(r: T, id: string): T => (r.run_id === id ? r : { ...r, run_id: id });

function commitRun(sink: ImportSink, label: string, builder: AtifRunBuilder, config: string, id: string): void {
  const { run, notes, problems } = builder.result();
  for (const p of problems) sink.problem(`${label}: ${p}`);
  sink.commit(as(run, id), config, notes);
}

/** One ATIF file into the sink: every trajectory in it, or none (a bad file is skipped whole). */
function importAtifFile(sink: ImportSink, file: string, o: ImportOptions): void {
  let items: AtifFileItem[];
  // An ATIF trajectory's identity is its file's: a hash of its bytes, taken as the header pass reads them.
  const hash = createHash('sha256');
  try {
    items = readAtifHeaders(file, { ...o.stream, chunk: (bytes) => hash.update(bytes) });
  } catch (e) {
    return sink.skip(fileError(file, e));
  }
  // The file's runs are committed together at its end: a bad step skips the whole file.
  const mark = sink.begin();
  const pending = new Map<string, number>();
  const open = new Map<number, { builder: AtifRunBuilder; config: string; id: string } | null>();
  const done: Array<{ item: number; builder: AtifRunBuilder; config: string; id: string }> = [];
  let identity: string | undefined;
  const openItem = (i: number) => {
    if (open.has(i)) return open.get(i)!;
    const r = builderFor(sink, items[i]!, o, pending);
    // The same file given twice is one run; another file (or trajectory) under the same id is another trial.
    identity ??= hash.digest('hex');
    const id = sink.claim(r.builder.id, `${identity}:${i}`);
    const keep = id === null ? null : { ...r, id };
    open.set(i, keep);
    return keep;
  };
  try {
    readAtifSteps(
      file,
      items,
      {
        step(i, s) {
          const item = openItem(i);
          const r = item?.builder.add(s);
          if (r) sink.step(as(r, item!.id));
        },
        end(i) {
          const r = openItem(i);
          if (r) done.push({ item: i, ...r });
        },
      },
      o.stream,
    );
  } catch (e) {
    sink.discard(mark);
    return sink.skip(fileError(file, e));
  }
  if (done[0]) sink.scenarioOrder(scenarioOrder(items[done[0].item]!.header as AtifTrajectory));
  for (const d of done) commitRun(sink, items.length > 1 ? `${file}[${d.item}]` : file, d.builder, d.config, d.id);
}

function fileError(file: string, e: unknown): string {
  if (e instanceof AtifFileError) return e.message;
  if (e instanceof JsonStreamError) return `${file}: ${e.message}`;
  const code = (e as NodeJS.ErrnoException).code;
  return `${file}: cannot read file (${code ?? (e as Error).message})`;
}

/** Imports ATIF files into `dir` (which must not hold records yet). */
export function importAtif(found: FoundFiles, dir: string, o: ImportOptions): ImportOutcome {
  const sink = new ImportSink(dir, o.steps);
  for (const line of found.unreadable) sink.skip(line);
  for (const file of found.files) importAtifFile(sink, file, o);
  return sink.finish('atif', found.files.length, o);
}

/** One trajectory already in memory (a chat log's run, a message list's record) into the sink. */
function importOne(
  sink: ImportSink,
  t: AtifTrajectory,
  label: string,
  o: ImportOptions,
  identity = identityOf(t),
): void {
  const { builder, config } = builderFor(sink, { header: t, firstStepModel: null }, o);
  const id = sink.claim(builder.id, identity);
  if (id === null) return;
  sink.begin();
  for (const s of t.steps) {
    const r = builder.add(s);
    if (r) sink.step(as(r, id));
  }
  commitRun(sink, label, builder, config, id);
}

/** Imports trajectories already in memory (chat logs, grouped into runs) into `dir`. */
export function importTrajectories(
  trajectories: Iterable<AtifTrajectory>,
  format: string,
  files: number,
  dir: string,
  o: ImportOptions,
): ImportOutcome {
  const sink = new ImportSink(dir, o.steps);
  for (const t of trajectories) importOne(sink, t, t.session_id, o);
  return sink.finish(format, files, o);
}

/** The records of a message-list file: JSON lines, a JSON array of records, or one record. */
function forEachRecord(
  file: string,
  each: (record: unknown, where: string) => void,
  bad: (where: string, why: string) => void,
  o: StreamOptions = {},
): void {
  if (isJsonLines(file)) return forEachJsonLine(file, each, bad);
  let array = false;
  streamJsonFile(
    file,
    {
      visit: (path) => (path.length === 0 ? ((array = true), 'walk') : 'read'),
      value: (path, v) => each(v, array ? `${file}[${path[0]}]` : file),
    },
    o,
  );
}

/** Imports message-list files (one conversation per record) into `dir`: a bad record is one line, the rest imports. */
export function importMessages(found: FoundFiles, dir: string, f: MessagesFormat, o: ImportOptions): ImportOutcome {
  const sink = new ImportSink(dir, o.steps);
  for (const line of found.unreadable) sink.skip(line);
  const counter = new TokenCounter();
  const notes = new Set<string>();
  for (const file of found.files) {
    try {
      forEachRecord(
        file,
        (record, where) => {
          const read = messagesTrajectory(record, where, f, counter, notes);
          const id = valueAt(record, f.idField);
          const named =
            typeof id === 'string' || typeof id === 'number' ? `${where} (${f.idField} ${JSON.stringify(id)})` : where;
          if (read.error) sink.skip(`${named}: ${read.error}`);
          else importOne(sink, read.trajectory!, named, o, identityOf(record));
        },
        (where, why) => sink.skip(`${where}: ${why}`),
        o.stream,
      );
    } catch (e) {
      sink.skip(fileError(file, e));
    }
  }
  for (const n of notes) sink.note(n);
  return sink.finish('messages', found.files.length, o);
}

export { ImportSink };
