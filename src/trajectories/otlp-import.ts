// `bench import --format otlp`: OTLP/JSON trace exports (one ExportTraceServiceRequest per file, or one
// per line as the Collector's file exporter and `bench export --format otlp` write them) → runs. Spans
// of one trace may be spread over a whole file (collectors batch by time), so each GenAI span is kept
// as a compact row in one of a fixed number of bucket files by its trace id; then each bucket, holding
// whole traces, is read back and turned into runs. Memory holds one bucket's rows, not the input.
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { runFromSpans, runsOfTrace } from './from-spans.ts';
import { JsonlWriter } from '../results/jsonl.ts';
import { identityOf, ImportSink, type ImportOutcome } from './import-sink.ts';
import {
  describePath,
  forEachJsonLine,
  forEachLine,
  isJsonLines,
  JsonStreamError,
  streamJsonFile,
  type JsonPath,
} from './json-stream.ts';
import { MAX_NESTING, nestingProblem, requestShapeProblem, spanProblem, spansOf } from './otlp-check.ts';
import { hexId, serviceOf, spanRow, type SpanRow } from './otlp-spans.ts';
import type { FoundFiles, ImportOptions } from './import-dir.ts';

const BUCKETS = 64;

/** A span refused: where, why, and its trace (whose other spans are then not made into runs). */
export type BadSpan = (where: string, why: string, trace?: string) => void;

const traceOf = (span: unknown) => {
  const id = (span as { traceId?: unknown } | null)?.traceId;
  return typeof id === 'string' && id ? hexId(id) : undefined;
};

/** One span: checked (each count within the ceiling, src/contracts/counts.ts), then its row if it is a GenAI one. */
function takeSpan(
  span: unknown,
  service: string | undefined,
  where: string,
  path: JsonPath,
  each: (row: SpanRow) => void,
  bad: BadSpan,
): void {
  const problem = spanProblem(span, path);
  if (problem) return bad(where, `${problem.path}: ${problem.why}`, traceOf(span));
  const row = spanRow(span as Record<string, unknown>, service);
  if (row) each(row);
}

const SCOPE_KEYS = new Set(['scopeSpans', 'instrumentationLibrarySpans']);
/** Where a streamed request must hold an array or object (resourceSpans, each entry, its scopeSpans, each entry, its spans): a scalar there is a bad field. */
const needsContainer = (p: JsonPath) =>
  p.length === 1 ||
  (p.length === 2 && typeof p[1] === 'number') ||
  (p.length === 3 && SCOPE_KEYS.has(p[2] as string)) ||
  (p.length === 4 && SCOPE_KEYS.has(p[2] as string)) ||
  (p.length === 5 && SCOPE_KEYS.has(p[2] as string) && p[4] === 'spans');

/** Every GenAI span of an OTLP/JSON file, one at a time: JSON lines of requests, or one (streamed) request, told apart by content. */
export function forEachSpanRow(file: string, each: (row: SpanRow) => void, bad: BadSpan): void {
  if (isJsonLines(file)) {
    return forEachJsonLine(
      file,
      (request, where) => {
        if (
          !request ||
          typeof request !== 'object' ||
          !Array.isArray((request as { resourceSpans?: unknown }).resourceSpans)
        )
          return bad(where, 'resourceSpans: missing (expected an OTLP ExportTraceServiceRequest)');
        const shape = requestShapeProblem(request);
        if (shape) return bad(where, `${shape.path}: ${shape.why}`);
        for (const { span, path, resource } of spansOf(request))
          takeSpan(span, serviceOf(resource), where, path, each, bad);
      },
      bad,
    );
  }
  // resourceSpans[i] → resource, scopeSpans[j] → spans[k]: each span read alone.
  let service: string | undefined;
  let sawResourceSpans = false;
  const isSpans = (p: JsonPath) =>
    p.length === 5 &&
    p[0] === 'resourceSpans' &&
    (p[2] === 'scopeSpans' || p[2] === 'instrumentationLibrarySpans') &&
    p[4] === 'spans';
  streamJsonFile(file, {
    visit(p, kind) {
      if (p.length === 0) return kind === 'object' ? 'walk' : 'skip';
      if (p[0] !== 'resourceSpans') return 'skip';
      sawResourceSpans = true;
      if (
        p.length <= 2 ||
        (p.length === 3 && (p[2] === 'scopeSpans' || p[2] === 'instrumentationLibrarySpans')) ||
        (p.length === 4 && p[2] !== 'resource') ||
        isSpans(p)
      )
        return 'walk';
      if (p.length === 3 && p[2] === 'resource') return 'read';
      if (p.length === 6 && isSpans(p.slice(0, 5))) return 'read';
      return 'skip';
    },
    value(p, v) {
      if (p[0] === 'resourceSpans' && needsContainer(p))
        return bad(
          file,
          `${describePath(p)}: expected ${p.length % 2 ? 'an array' : 'an object'}, got ${v === null ? 'null' : typeof v}`,
        );
      if (p.length === 3 && p[2] === 'resource') service = serviceOf(v);
      else if (p.length === 6 && isSpans(p.slice(0, 5))) {
        const deep = nestingProblem(v, MAX_NESTING - p.length);
        if (deep) return bad(file, `${describePath(p)}.${deep.path}: ${deep.why}`, traceOf(v));
        takeSpan(v, service, file, p, each, bad);
      }
    },
    close(p) {
      if (p.length === 2 && p[0] === 'resourceSpans') service = undefined;
    },
  });
  if (!sawResourceSpans) bad(file, 'resourceSpans: missing (expected an OTLP ExportTraceServiceRequest)');
}

const bucketOf = (trace: string) => createHash('md5').update(trace).digest()[0]! % BUCKETS;

/** Imports OTLP/JSON files into `dir` (which must not hold records yet). */
export function importOtlp(found: FoundFiles, dir: string, o: ImportOptions): ImportOutcome {
  const sink = new ImportSink(dir, o.steps);
  for (const line of found.unreadable) sink.skip(line);
  const spill = fs.mkdtempSync(path.join(dir, '.otlp-spans-'));
  try {
    const files = Array.from({ length: BUCKETS }, (_, i) => path.join(spill, `${i}.jsonl`));
    const writers = new Map<number, JsonlWriter>();
    // Traces with a span refused: made into no runs (a run missing a call would misstate its totals).
    const refused = new Set<string>();
    let spans = 0;
    for (const file of found.files) {
      try {
        forEachSpanRow(
          file,
          (row) => {
            const b = bucketOf(row.trace);
            let w = writers.get(b);
            if (!w) writers.set(b, (w = new JsonlWriter(files[b]!)));
            w.write(row);
            spans++;
          },
          (where, why, trace) => {
            sink.skip(`${where}: ${why}`);
            if (trace) refused.add(trace);
          },
        );
      } catch (e) {
        sink.skip(
          e instanceof JsonStreamError
            ? `${file}: ${e.message}`
            : `${file}: cannot read file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
        );
      }
    }
    for (const w of writers.values()) w.close();
    if (found.files.length && spans === 0)
      sink.note(
        'no GenAI spans (gen_ai.operation.name chat / invoke_agent / execute_tool, or OpenInference LLM / AGENT / TOOL) were found',
      );
    for (const b of [...writers.keys()].sort((x, y) => x - y)) importBucket(sink, files[b]!, o, refused);
  } finally {
    fs.rmSync(spill, { recursive: true, force: true });
  }
  return sink.finish('otlp', found.files.length, o);
}

/** One bucket: whole traces, in the order their first span was met. */
function importBucket(sink: ImportSink, file: string, o: ImportOptions, refused: ReadonlySet<string>): void {
  const traces = new Map<string, Map<string, SpanRow>>();
  let resent = 0;
  forEachLine(file, (line) => {
    const row = JSON.parse(line) as SpanRow;
    let spans = traces.get(row.trace);
    if (!spans) traces.set(row.trace, (spans = new Map()));
    // A span sent twice (an exporter's retry, a file given twice) is one span.
    const key = `${row.span}\u0000${line}`;
    if (spans.has(key)) resent++;
    else spans.set(key, row);
  });
  if (resent) sink.note(`${resent} span(s) came twice, byte for byte: each counted once`);
  for (const [trace, spans] of traces) {
    if (refused.has(trace)) {
      sink.skip(`trace ${trace}: not imported: a span of it was refused (above)`);
      continue;
    }
    const rows = [...spans.values()];
    for (const { root, members } of runsOfTrace(rows)) {
      const r = runFromSpans(trace, root, members, {
        scenario: o.scenario,
        price: o.price,
        outcomes: o.outcomes,
        repeatOf: (c) => sink.nextRepeat(c),
      });
      if (!r) continue;
      const id = sink.claim(r.run.run_id, identityOf([root, ...members]));
      if (id === null) continue;
      if (r.order) sink.scenarioOrder(r.order);
      sink.begin();
      for (const s of r.steps) sink.step(id === s.run_id ? s : { ...s, run_id: id });
      sink.commit({ ...r.run, run_id: id }, r.config, r.notes);
    }
  }
}
