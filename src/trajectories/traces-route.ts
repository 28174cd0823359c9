// POST /v1/traces on `bench serve` and the gateway: an OTLP/HTTP trace receiver, so an agent already
// instrumented with OpenTelemetry (OpenLLMetry, OpenInference, the GenAI conventions) can be measured by
// pointing its exporter at loopbench. Each request (protobuf, decoded with OpenTelemetry JS's generated
// decoders, or JSON; gzip or not) is checked field by field first (otlp-check.ts: a bad one is a 400 naming
// its path, and no body, however made, ends the process), then appended to an OTLP/JSON lines file as one
// whole line before it is acknowledged, ids in hex, the
// same file `bench export --format otlp` writes; when the server stops, that file is imported as runs
// (`bench import --format otlp`), since only then is each trace known to be complete.
import { JsonlWriter } from '../results/jsonl.ts';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type http from 'node:http';
import type { HttpRoute } from '../contracts/http-route.ts';
import { requestProblem, spansOf } from './otlp-check.ts';

export const TRACES_ROUTE = '/v1/traces';
/** A batch larger than this is refused (413) before it is held whole. */
export const MAX_TRACES_BODY = 32 * 1024 * 1024;

const require = createRequire(import.meta.url);

interface RequestType {
  decode(bytes: Uint8Array): unknown;
  toObject(
    m: unknown,
    o: { longs: StringConstructor; enums: NumberConstructor; bytes: StringConstructor },
  ): Record<string, unknown>;
}
let decoder: RequestType | undefined;
/** otlp-transformer 0.215.0's protobufjs decoders (the last release to ship them), loaded on the first protobuf request. */
function protobufDecoder(): RequestType {
  decoder ??= (
    require('otlp-proto-decode/build/src/generated/root.js') as {
      opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: RequestType } } } } };
    }
  ).opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
  return decoder;
}

const hex = (v: unknown) => (typeof v === 'string' && v ? Buffer.from(v, 'base64').toString('hex') : v);

/** A decoded protobuf request in OTLP/JSON's spelling: ids from base64 (protobufjs's bytes) to hex. */
function asOtlpJson(request: Record<string, unknown>): Record<string, unknown> {
  for (const rs of (request.resourceSpans as Array<{
    scopeSpans?: Array<{ spans?: Array<Record<string, unknown>> }>;
  }>) ?? [])
    for (const ss of rs.scopeSpans ?? [])
      for (const s of ss.spans ?? []) for (const k of ['traceId', 'spanId', 'parentSpanId']) s[k] = hex(s[k]);
  return request;
}

function reply(res: http.ServerResponse, status: number, protobuf: boolean, message?: string): void {
  if (res.headersSent) return void res.end();
  if (status === 200)
    return void res
      .writeHead(200, { 'content-type': protobuf ? 'application/x-protobuf' : 'application/json' })
      .end(protobuf ? undefined : '{}');
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message } }));
}

/** Refused with a status and the reason (never any of the body). */
class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const gunzip = promisify(zlib.gunzip);

/** The body, read up to MAX_TRACES_BODY bytes (before and after gzip). */
async function bodyOf(req: http.IncomingMessage): Promise<Buffer> {
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding !== 'gzip' && encoding !== 'identity')
    throw new Refused(415, `content-encoding ${JSON.stringify(encoding.slice(0, 20))} is not taken (gzip or none)`);
  const tooLarge = new Refused(413, `Request body larger than ${MAX_TRACES_BODY} bytes`);
  if (Number(req.headers['content-length'] ?? 0) > MAX_TRACES_BODY) throw tooLarge;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > MAX_TRACES_BODY) throw tooLarge;
    chunks.push(c);
  }
  const body = Buffer.concat(chunks);
  if (encoding !== 'gzip') return body;
  try {
    return await gunzip(body, { maxOutputLength: MAX_TRACES_BODY });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
      throw new Refused(413, `Request body larger than ${MAX_TRACES_BODY} bytes once gunzipped`);
    throw new Refused(400, 'the body is not gzip (content-encoding: gzip)');
  }
}

/** The body as an OTLP/JSON request: decoded (protobuf) or parsed (JSON), then checked field by field. */
function requestOf(body: Buffer, protobuf: boolean): Record<string, unknown> {
  let request: unknown;
  try {
    if (protobuf) {
      const d = protobufDecoder();
      request = asOtlpJson(d.toObject(d.decode(body), { longs: String, enums: Number, bytes: String }));
    } else request = JSON.parse(body.toString('utf8').replace(/^\uFEFF/, ''));
  } catch {
    // Nothing of the body is quoted back.
    throw new Refused(400, `the body is not an OTLP ExportTraceServiceRequest (${protobuf ? 'protobuf' : 'JSON'})`);
  }
  const problem = requestProblem(request);
  if (problem) throw new Refused(400, `${problem.path}: ${problem.why}`);
  return request as Record<string, unknown>;
}

/** Past this much of a refused body, the connection is cut instead of read to its end. */
const MAX_DRAINED = 4 * MAX_TRACES_BODY;

/** Reads the rest of a request and drops it: true at its end, false when it was cut (too much, or the client left). */
function drained(req: http.IncomingMessage): Promise<boolean> {
  if (req.complete) return Promise.resolve(true);
  return new Promise((resolve) => {
    let bytes = 0;
    req.on('data', (c: Buffer) => {
      bytes += c.length;
      if (bytes > MAX_DRAINED) {
        req.socket.destroy();
        resolve(false);
      }
    });
    req.once('end', () => resolve(true));
    req.once('close', () => resolve(req.complete));
    req.resume();
  });
}

export interface TracesReceiver {
  route: HttpRoute;
  /** Requests and spans taken so far. */
  received(): { requests: number; spans: number };
  close(): void;
}

/** A receiver appending to `file` (created, or appended to if it exists: cut a crash's partial last line off first, results/jsonl.ts cutPartialLine). */
export function tracesReceiver(file: string): TracesReceiver {
  const out = new JsonlWriter(file);
  let requests = 0;
  let spans = 0;
  const take = async (req: http.IncomingMessage, res: http.ServerResponse, protobuf: boolean) => {
    if (req.method !== 'POST') throw new Refused(405, `Method ${req.method} not allowed on ${TRACES_ROUTE} (use POST)`);
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
    if (!protobuf && type !== 'application/json')
      throw new Refused(415, `${TRACES_ROUTE} takes OTLP/HTTP: application/x-protobuf or application/json`);
    const request = requestOf(await bodyOf(req), protobuf);
    let n = 0;
    for (const _ of spansOf(request)) n++;
    // Flushed per request: what was acknowledged is on disk, one whole line (an empty export has nothing to keep).
    if (n > 0) {
      out.write(request);
      out.flush();
    }
    requests++;
    spans += n;
    reply(res, 200, protobuf);
  };
  // Never rejects: no body, however made, reaches the server as an exception.
  const route: HttpRoute = async (req, res) => {
    const protobuf = (req.headers['content-type'] ?? '').split(';')[0]!.trim() === 'application/x-protobuf';
    try {
      await take(req, res, protobuf);
    } catch (e) {
      // What is left of a refused body is read and dropped first, so the client gets the answer, not a broken pipe.
      if (await drained(req))
        reply(
          res,
          e instanceof Refused ? e.status : 500,
          protobuf,
          e instanceof Refused ? e.message : `the request could not be taken (${(e as Error).name})`,
        );
    }
  };
  return { route, received: () => ({ requests, spans }), close: () => out.close() };
}
