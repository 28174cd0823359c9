// A real OTLP/HTTP trace receiver on 127.0.0.1 for tests: POST /v1/traces, protobuf decoded with the
// protobufjs decoders OpenTelemetry JS generated from the OTLP protos (@opentelemetry/otlp-transformer
// 0.215.0, the last release that ships them, installed as otlp-proto-decode), JSON parsed as OTLP/JSON.
// Nothing of loopbench's own import code is used: what it records is what went over the wire.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

interface ProtoRequestType {
  decode(bytes: Uint8Array): unknown;
  toObject(
    message: unknown,
    o: { longs: StringConstructor; enums: NumberConstructor; bytes: StringConstructor; defaults: boolean },
  ): unknown;
}
const root = require('otlp-proto-decode/build/src/generated/root.js') as {
  opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: ProtoRequestType } } } } };
};
const ExportTraceServiceRequest = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

export type AttrValue = string | number | boolean | AttrValue[];

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  startMs: number;
  endMs: number;
  status: number;
  attributes: Record<string, AttrValue>;
  resource: Record<string, AttrValue>;
  scope: string;
}

export interface Received {
  contentType: string;
  headers: http.IncomingHttpHeaders;
  spans: ReceivedSpan[];
}

type RawValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: RawValue[] };
};
const valueOf = (v: RawValue): AttrValue =>
  v.stringValue !== undefined
    ? v.stringValue
    : v.intValue !== undefined
      ? Number(v.intValue)
      : v.doubleValue !== undefined
        ? v.doubleValue
        : v.boolValue !== undefined
          ? v.boolValue
          : (v.arrayValue?.values ?? []).map(valueOf);
const attrs = (list: Array<{ key: string; value: RawValue }> = []) =>
  Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));
/** Ids are bytes in protobuf (base64 from toObject) and hex in OTLP/JSON. */
const id = (v: string | undefined, proto: boolean) => (!v ? '' : proto ? Buffer.from(v, 'base64').toString('hex') : v);
const ms = (nanos: string | number) => Number(BigInt(nanos) / 1_000_000n);

function spansOf(request: any, proto: boolean): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of request.resourceSpans ?? [])
    for (const ss of rs.scopeSpans ?? [])
      for (const s of ss.spans ?? [])
        out.push({
          traceId: id(s.traceId, proto),
          spanId: id(s.spanId, proto),
          parentSpanId: id(s.parentSpanId, proto),
          name: s.name,
          kind: s.kind,
          startMs: ms(s.startTimeUnixNano),
          endMs: ms(s.endTimeUnixNano),
          status: s.status?.code ?? 0,
          attributes: attrs(s.attributes),
          resource: attrs(rs.resource?.attributes),
          scope: ss.scope?.name ?? '',
        });
  return out;
}

/** Decodes one ExportTraceServiceRequest body as the receiver does. */
export function decodeRequest(body: Buffer, contentType: string): ReceivedSpan[] {
  if (contentType.startsWith('application/x-protobuf')) {
    const message = ExportTraceServiceRequest.decode(body);
    return spansOf(
      ExportTraceServiceRequest.toObject(message, { longs: String, enums: Number, bytes: String, defaults: false }),
      true,
    );
  }
  return spansOf(JSON.parse(body.toString('utf8')), false);
}

export class OtlpReceiver {
  readonly requests: Received[] = [];
  url = '';
  private server!: http.Server;

  static async start(): Promise<OtlpReceiver> {
    const r = new OtlpReceiver();
    r.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== '/v1/traces') {
          res.writeHead(404).end();
          return;
        }
        const contentType = req.headers['content-type'] ?? '';
        try {
          r.requests.push({
            contentType,
            headers: req.headers,
            spans: decodeRequest(Buffer.concat(chunks), contentType),
          });
        } catch (e) {
          res.writeHead(400, { 'content-type': 'text/plain' }).end(String(e));
          return;
        }
        // An empty ExportTraceServiceResponse: full success.
        if (contentType.startsWith('application/x-protobuf'))
          res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
        else res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => r.server.listen(0, '127.0.0.1', resolve));
    r.url = `http://127.0.0.1:${(r.server.address() as AddressInfo).port}`;
    return r;
  }

  spans(): ReceivedSpan[] {
    return this.requests.flatMap((q) => q.spans);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
