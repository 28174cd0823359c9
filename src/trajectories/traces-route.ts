// POST /v1/traces on `bench serve` and the gateway: an OTLP/HTTP trace receiver, so an agent already
// instrumented with OpenTelemetry (OpenLLMetry, OpenInference, the GenAI conventions) can be measured by
// pointing its exporter at loopbench. Each request (protobuf, decoded with OpenTelemetry JS's generated
// decoders, or JSON; gzip or not) is appended to an OTLP/JSON lines file as it arrives, ids in hex, the
// same file `bench export --format otlp` writes; when the server stops, that file is imported as runs
// (`bench import --format otlp`), since only then is each trace known to be complete.
import { JsonlWriter } from '../results/jsonl.ts';
import { createRequire } from 'node:module';
import zlib from 'node:zlib';
import type http from 'node:http';
import type { HttpRoute } from '../contracts/http-route.ts';

export const TRACES_ROUTE = '/v1/traces';
/** A batch larger than this is refused (413) before it is held whole. */
export const MAX_TRACES_BODY = 32 * 1024 * 1024;

const require = createRequire(import.meta.url);

interface RequestType {
  decode(bytes: Uint8Array): unknown;
  toObject(m: unknown, o: { longs: StringConstructor; enums: NumberConstructor; bytes: StringConstructor }): Record<string, unknown>;
}
let decoder: RequestType | undefined;
/** otlp-transformer 0.215.0's protobufjs decoders (the last release to ship them), loaded on the first protobuf request. */
function protobufDecoder(): RequestType {
  decoder ??= (require('otlp-proto-decode/build/src/generated/root.js') as { opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: RequestType } } } } } }).opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
  return decoder;
}

const hex = (v: unknown) => (typeof v === 'string' && v ? Buffer.from(v, 'base64').toString('hex') : v);

/** A decoded protobuf request in OTLP/JSON's spelling: ids from base64 (protobufjs's bytes) to hex. */
function asOtlpJson(request: Record<string, unknown>): Record<string, unknown> {
  for (const rs of (request.resourceSpans as Array<{ scopeSpans?: Array<{ spans?: Array<Record<string, unknown>> }> }>) ?? [])
    for (const ss of rs.scopeSpans ?? [])
      for (const s of ss.spans ?? []) for (const k of ['traceId', 'spanId', 'parentSpanId']) s[k] = hex(s[k]);
  return request;
}

function reply(res: http.ServerResponse, status: number, protobuf: boolean, message?: string): void {
  if (status === 200) return void res.writeHead(200, { 'content-type': protobuf ? 'application/x-protobuf' : 'application/json' }).end(protobuf ? undefined : '{}');
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message } }));
}

export interface TracesReceiver {
  route: HttpRoute;
  /** Requests and spans taken so far. */
  received(): { requests: number; spans: number };
  close(): void;
}

/** A receiver appending to `file` (created, or appended to if it exists). */
export function tracesReceiver(file: string): TracesReceiver {
  const out = new JsonlWriter(file);
  let requests = 0;
  let spans = 0;
  const route: HttpRoute = async (req, res) => {
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
    const protobuf = type === 'application/x-protobuf';
    if (req.method !== 'POST') return reply(res, 405, protobuf, `Method ${req.method} not allowed on ${TRACES_ROUTE} (use POST)`);
    if (!protobuf && type !== 'application/json') return reply(res, 415, false, `${TRACES_ROUTE} takes OTLP/HTTP: application/x-protobuf or application/json`);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of req as AsyncIterable<Buffer>) {
      size += c.length;
      if (size > MAX_TRACES_BODY) return reply(res, 413, protobuf, `Request body larger than ${MAX_TRACES_BODY} bytes`);
      chunks.push(c);
    }
    let request: Record<string, unknown>;
    try {
      let body: Buffer = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = zlib.gunzipSync(body, { maxOutputLength: MAX_TRACES_BODY });
      const d = protobufDecoder();
      request = protobuf ? asOtlpJson(d.toObject(d.decode(body), { longs: String, enums: Number, bytes: String })) : (JSON.parse(body.toString('utf8')) as Record<string, unknown>);
      if (!request || typeof request !== 'object' || (request.resourceSpans !== undefined && !Array.isArray(request.resourceSpans))) throw new Error('not a request');
    } catch {
      // Nothing of the body is quoted back.
      return reply(res, 400, protobuf, `the body is not an OTLP ExportTraceServiceRequest (${protobuf ? 'protobuf' : 'JSON'})`);
    }
    request.resourceSpans ??= [];
    for (const rs of request.resourceSpans as Array<{ scopeSpans?: Array<{ spans?: unknown[] }> }>) for (const ss of rs.scopeSpans ?? []) spans += ss.spans?.length ?? 0;
    requests++;
    // Flushed per request: what was acknowledged is on disk.
    out.write(request);
    out.flush();
    reply(res, 200, protobuf);
  };
  return { route, received: () => ({ requests, spans }), close: () => out.close() };
}
