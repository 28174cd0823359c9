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
import { ImportSink, type ImportOutcome } from './import-sink.ts';
import { forEachJsonLine, forEachLine, JsonStreamError, streamJsonFile, type JsonPath } from './json-stream.ts';
import { rowsOfRequest, serviceOf, spanRow, type SpanRow } from './otlp-spans.ts';
import type { FoundFiles, ImportOptions } from './import-dir.ts';

const BUCKETS = 64;

/** Every GenAI span of an OTLP/JSON file, one at a time: JSON lines of requests, or one (streamed) request. */
export function forEachSpanRow(file: string, each: (row: SpanRow) => void, bad: (where: string, why: string) => void): void {
  if (file.endsWith('.jsonl')) {
    return forEachJsonLine(
      file,
      (request, where) => {
        if (!request || typeof request !== 'object' || !Array.isArray((request as { resourceSpans?: unknown }).resourceSpans)) return bad(where, 'resourceSpans: missing (expected an OTLP ExportTraceServiceRequest)');
        for (const row of rowsOfRequest(request)) each(row);
      },
      bad,
    );
  }
  // resourceSpans[i] → resource, scopeSpans[j] → spans[k]: each span read alone.
  let service: string | undefined;
  let sawResourceSpans = false;
  const isSpans = (p: JsonPath) => p.length === 5 && p[0] === 'resourceSpans' && (p[2] === 'scopeSpans' || p[2] === 'instrumentationLibrarySpans') && p[4] === 'spans';
  streamJsonFile(file, {
    visit(p, kind) {
      if (p.length === 0) return kind === 'object' ? 'walk' : 'skip';
      if (p[0] !== 'resourceSpans') return 'skip';
      sawResourceSpans = true;
      if (p.length <= 2 || (p.length === 3 && (p[2] === 'scopeSpans' || p[2] === 'instrumentationLibrarySpans')) || (p.length === 4 && p[2] !== 'resource') || isSpans(p)) return 'walk';
      if (p.length === 3 && p[2] === 'resource') return 'read';
      if (p.length === 6 && isSpans(p.slice(0, 5))) return 'read';
      return 'skip';
    },
    value(p, v) {
      if (p.length === 3 && p[2] === 'resource') service = serviceOf(v);
      else if (p.length === 6 && v && typeof v === 'object') {
        const row = spanRow(v as Record<string, unknown>, service);
        if (row) each(row);
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
  const sink = new ImportSink(dir);
  for (const line of found.unreadable) sink.skip(line);
  const spill = fs.mkdtempSync(path.join(dir, '.otlp-spans-'));
  try {
    const files = Array.from({ length: BUCKETS }, (_, i) => path.join(spill, `${i}.jsonl`));
    const writers = new Map<number, JsonlWriter>();
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
          (where, why) => sink.skip(`${where}: ${why}`),
        );
      } catch (e) {
        sink.skip(e instanceof JsonStreamError ? `${file}: ${e.message}` : `${file}: cannot read file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
      }
    }
    for (const w of writers.values()) w.close();
    if (found.files.length && spans === 0) sink.note('no GenAI spans (gen_ai.operation.name chat / invoke_agent / execute_tool, or OpenInference LLM / AGENT / TOOL) were found');
    for (const b of [...writers.keys()].sort((x, y) => x - y)) importBucket(sink, files[b]!, o);
  } finally {
    fs.rmSync(spill, { recursive: true, force: true });
  }
  return sink.finish('otlp', found.files.length, o.command);
}

/** One bucket: whole traces, in the order their first span was met. */
function importBucket(sink: ImportSink, file: string, o: ImportOptions): void {
  const traces = new Map<string, SpanRow[]>();
  forEachLine(file, (line) => {
    const row = JSON.parse(line) as SpanRow;
    let list = traces.get(row.trace);
    if (!list) traces.set(row.trace, (list = []));
    list.push(row);
  });
  for (const [trace, rows] of traces) {
    for (const { root, members } of runsOfTrace(rows)) {
      const r = runFromSpans(trace, root, members, { scenario: o.scenario, price: o.price, outcomes: o.outcomes, repeatOf: (c) => sink.nextRepeat(c) });
      if (!r) continue;
      if (sink.has(r.run.run_id)) {
        sink.skip(`trace ${trace}: run ${r.run.run_id} appears twice: the second is skipped`);
        continue;
      }
      if (r.order) sink.scenarioOrder(r.order);
      sink.begin();
      for (const s of r.steps) sink.step(s);
      sink.commit(r.run, r.config, r.notes);
    }
  }
}

