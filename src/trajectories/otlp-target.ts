// Where exported spans go, as the command line names it: kept apart from otlp-out.ts, which loads the
// OpenTelemetry SDK and exporters (about a quarter second of CPU), so `bench` loads those only when
// spans are actually written, not whenever it parses the OTLP flags.

export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

export interface SpanTarget {
  /** `{ file }`: OTLP/JSON lines; `{ url }`: OTLP/HTTP to that traces URL. */
  file?: string;
  url?: string;
  protocol?: OtlpProtocol;
  /** Extra request headers (OTEL_EXPORTER_OTLP_HEADERS is read by the exporter itself). */
  headers?: Record<string, string>;
  /** resource service.name / service.version. */
  service: { name: string; version: string };
}

/** The traces URL for an OTLP base endpoint, as OTEL_EXPORTER_OTLP_ENDPOINT is read: `/v1/traces` added unless there. */
export function tracesUrl(endpoint: string): string {
  const u = endpoint.replace(/\/+$/, '');
  return u.endsWith('/v1/traces') ? u : `${u}/v1/traces`;
}
