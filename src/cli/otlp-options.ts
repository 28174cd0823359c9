// The OTLP flags `bench export --format otlp` and `bench run` share, read as OpenTelemetry users expect:
// `--otlp-endpoint URL` (a base endpoint, `/v1/traces` added as for OTEL_EXPORTER_OTLP_ENDPOINT), or the
// flag alone to use OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / OTEL_EXPORTER_OTLP_ENDPOINT; the protocol from
// --otlp-protocol, else OTEL_EXPORTER_OTLP_TRACES_PROTOCOL / OTEL_EXPORTER_OTLP_PROTOCOL, else
// http/protobuf. Headers (OTEL_EXPORTER_OTLP_HEADERS, often a key) are read by the exporter itself and
// never printed.
import type { Command } from 'commander';
import { UsageError } from '../contracts/errors.ts';
import { versions } from '../results/meta.ts';
import { OTLP_PROTOCOLS, tracesUrl, type OtlpProtocol, type SpanTarget } from '../trajectories/otlp-target.ts';
import { redact } from '../models/redact.ts';

export interface OtlpFlags {
  otlpEndpoint?: string | true;
  otlpProtocol?: string;
}

export function addOtlpOptions(cmd: Command, what: string): Command {
  return cmd
    .option(
      '--otlp-endpoint [url]',
      `send ${what} as OpenTelemetry GenAI spans over OTLP/HTTP to this endpoint (/v1/traces is added); alone: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT (headers from OTEL_EXPORTER_OTLP_HEADERS)`,
    )
    .option(
      '--otlp-protocol <protocol>',
      `OTLP/HTTP encoding: ${OTLP_PROTOCOLS.join(' or ')} (default: OTEL_EXPORTER_OTLP_PROTOCOL, else http/protobuf)`,
    );
}

/** Where the spans go over the network, or undefined when no endpoint was asked for. */
export function otlpTarget(
  o: OtlpFlags,
  env: NodeJS.ProcessEnv = process.env,
): Pick<SpanTarget, 'url' | 'protocol' | 'service'> | undefined {
  if (o.otlpEndpoint === undefined) {
    if (o.otlpProtocol !== undefined) throw new UsageError('--otlp-protocol: only with --otlp-endpoint');
    return undefined;
  }
  const url =
    o.otlpEndpoint === true
      ? (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
        (env.OTEL_EXPORTER_OTLP_ENDPOINT ? tracesUrl(env.OTEL_EXPORTER_OTLP_ENDPOINT) : undefined))
      : tracesUrl(o.otlpEndpoint);
  if (!url)
    throw new UsageError(
      '--otlp-endpoint: give a URL, or set OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)',
    );
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--otlp-endpoint: '${redact(url)}' is not a URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new UsageError(
      `--otlp-endpoint: ${parsed.protocol} is not supported (OTLP/HTTP: http: or https:; gRPC is not)`,
    );
  const protocol =
    o.otlpProtocol ?? env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf';
  if (!(OTLP_PROTOCOLS as readonly string[]).includes(protocol))
    throw new UsageError(
      `--otlp-protocol: '${protocol}' is not supported (accepted: ${OTLP_PROTOCOLS.join(', ')}; gRPC is not)`,
    );
  return { url, protocol: protocol as OtlpProtocol, service: serviceOf(env) };
}

export function serviceOf(env: NodeJS.ProcessEnv = process.env): SpanTarget['service'] {
  return { name: env.OTEL_SERVICE_NAME || 'loopbench', version: versions().loopbench ?? 'unknown' };
}
