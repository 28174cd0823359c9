// Where exported spans go: an OTLP/JSON file (one ExportTraceServiceRequest per line, one per run: the
// OpenTelemetry Collector's file-exporter layout), or an OTLP/HTTP endpoint through the official
// exporters (protobuf by default, as the OTLP specification has it; JSON with http/json). Spans are
// made per run by the SDK and handed on at once, the run's export awaited: none is dropped from a
// full queue, and memory holds one run's spans.
import fs from 'node:fs';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import type { RunRecord, StepRecord } from '../contracts/records.ts';
import { JsonlWriter } from '../results/jsonl.ts';
import { SCOPE } from './otel-attributes.ts';
import { emitRunSpans, PlannedIds, type SpanContext } from './to-spans.ts';
import type { SpanTarget } from './otlp-target.ts';

export class SpanWriter {
  private readonly ids = new PlannedIds();
  private readonly memory = new InMemorySpanExporter();
  private readonly provider: BasicTracerProvider;
  private readonly exporter: SpanExporter | null;
  private readonly file: JsonlWriter | null;
  runs = 0;
  spans = 0;

  constructor(private readonly target: SpanTarget) {
    this.provider = new BasicTracerProvider({
      idGenerator: this.ids,
      resource: resourceFromAttributes({
        'service.name': target.service.name,
        'service.version': target.service.version,
      }),
      spanProcessors: [new SimpleSpanProcessor(this.memory)],
    });
    if (target.file) fs.rmSync(target.file, { force: true });
    this.file = target.file ? new JsonlWriter(target.file) : null;
    const Exporter = target.protocol === 'http/json' ? JsonExporter : ProtoExporter;
    this.exporter = target.url
      ? new Exporter({ url: target.url, ...(target.headers ? { headers: target.headers } : {}) })
      : null;
  }

  /** The run's spans, written (file) or sent and acknowledged (endpoint). */
  async write(run: RunRecord, steps: readonly StepRecord[], context: SpanContext = {}): Promise<void> {
    emitRunSpans(this.provider.getTracer(SCOPE), this.ids, run, steps, context);
    const spans = this.memory.getFinishedSpans();
    this.memory.reset();
    this.runs++;
    this.spans += spans.length;
    if (this.file) {
      const bytes = JsonTraceSerializer.serializeRequest(spans as never);
      if (!bytes) throw new Error('the OTLP/JSON serializer returned nothing');
      this.file.writeLine(`${Buffer.from(bytes).toString('utf8')}\n`);
    }
    if (this.exporter) {
      const exporter = this.exporter;
      await new Promise<void>((resolve, reject) =>
        exporter.export(spans as never, (r) =>
          r.code === 0
            ? resolve()
            : reject(
                new Error(
                  `the OTLP endpoint did not take the spans of run ${run.run_id}: ${r.error?.message ?? 'export failed'}`,
                ),
              ),
        ),
      );
    }
  }

  async close(): Promise<void> {
    this.file?.close();
    await this.exporter?.shutdown();
    await this.provider.shutdown();
  }
}
