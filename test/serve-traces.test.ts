// POST /v1/traces on `bench serve --traces DIR` and on the gateway: an agent instrumented with
// OpenTelemetry (here the official JS SDK and OTLP exporters, writing GenAI-convention spans) points its
// exporter at loopbench; when bench serve stops, the spans are runs with reports.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SpanKind, context, trace } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunRecord, StepRecord } from '../src/contracts/records.ts';
import { servedUrl, spawnBench, type Spawned } from './helpers/cli.ts';
import { patient } from './helpers/patient.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-serve-traces-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const jsonl = <T>(file: string): T[] =>
  fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as T);

const started = async (s: Spawned): Promise<string> => (await servedUrl(s)).replace(/\/v1$/, '');

/** Three model calls and two tool calls of one agent run, as an instrumented agent's SDK emits them. */
async function instrumentedAgent(exporter: SpanExporter, conversation: string): Promise<void> {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'billing-agent' }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('my-agent');
  const t0 = Date.parse('2026-06-01T09:00:00Z');
  const root = tracer.startSpan('invoke_agent billing', {
    kind: SpanKind.INTERNAL,
    startTime: t0,
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'billing',
      'gen_ai.conversation.id': conversation,
      'gen_ai.provider.name': 'openai',
    },
  });
  const ctx = trace.setSpan(context.active(), root);
  [1000, 1600, 2200].forEach((input, i) => {
    const at = t0 + i * 2000;
    const chat = tracer.startSpan(
      'chat gpt-4o-mini',
      {
        kind: SpanKind.CLIENT,
        startTime: at,
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': 'openai',
          'gen_ai.request.model': 'gpt-4o-mini',
          'gen_ai.usage.input_tokens': input,
          'gen_ai.usage.output_tokens': 60,
          'gen_ai.response.finish_reasons': [i < 2 ? 'tool_calls' : 'stop'],
        },
      },
      ctx,
    );
    chat.end(at + 900);
    if (i < 2)
      tracer
        .startSpan(
          'execute_tool invoices',
          {
            startTime: at + 1000,
            attributes: {
              'gen_ai.operation.name': 'execute_tool',
              'gen_ai.tool.name': 'invoices',
              'gen_ai.tool.call.arguments': `{"month":${i + 1}}`,
            },
          },
          ctx,
        )
        .end(at + 1500);
  });
  root.end(t0 + 6000);
  await provider.forceFlush();
  await provider.shutdown();
}

describe('POST /v1/traces', () => {
  it(
    'bench serve --traces: spans sent by the OpenTelemetry SDK (protobuf and JSON) become runs with reports when it stops',
    async () => {
      const dir = path.join(tmp, 'served');
      const s = spawnBench(['serve', '--port', '0', '--traces', dir, '--log', path.join(tmp, 'usage.jsonl')]);
      const base = await started(s);
      await instrumentedAgent(new ProtoExporter({ url: `${base}/v1/traces` }), 'conv-proto');
      await instrumentedAgent(new JsonExporter({ url: `${base}/v1/traces` }), 'conv-json');
      // Not a trace: refused with the reason, nothing of the body quoted back.
      const bad = await fetch(`${base}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-protobuf' },
        body: 'password=hunter2',
      });
      expect(bad.status).toBe(400);
      expect(await bad.text()).not.toContain('hunter2');
      s.child.kill('SIGINT');
      const done = await s.done;
      expect(done.code, done.stderr).toBe(130);
      expect(done.stdout, done.stdout).toMatch(
        /imported 2 run\(s\), 6 model call\(s\) from 12 span\(s\) posted to \/v1\/traces/,
      );
      const runs = jsonl<RunRecord>(path.join(dir, 'runs.jsonl'));
      expect(runs.map((r) => [r.run_id, r.steps, r.input_tokens, r.output_tokens, r.stop_reason]).sort()).toEqual([
        ['billing_conv-json', 3, 4800, 180, 'done'],
        ['billing_conv-proto', 3, 4800, 180, 'done'],
      ]);
      const steps = jsonl<StepRecord>(path.join(dir, 'steps.jsonl')).filter((x) => x.run_id === 'billing_conv-proto');
      expect(steps.map((x) => [x.latency_ms, x.elapsed_ms, x.fingerprint])).toEqual([
        [900, 900, 'invoices({"month":1})'],
        [900, 2900, 'invoices({"month":2})'],
        [900, 4900, null],
      ]);
      for (const f of ['summary.csv', 'report.html', 'meta.json'])
        expect(fs.existsSync(path.join(dir, f)), f).toBe(true);
    },
    patient(60_000),
  );

  it(
    'the gateway (bench serve --out) takes POST /v1/traces too',
    async () => {
      const dir = path.join(tmp, 'gateway-traces');
      const s = spawnBench(['serve', '--port', '0', '--out', path.join(tmp, 'gateway'), '--traces', dir]);
      const base = await started(s);
      await instrumentedAgent(new ProtoExporter({ url: `${base}/v1/traces` }), 'via-gateway');
      // The same checks as on the simulated server: a 400 naming the bad field, not a 500.
      const bad = await fetch(`${base}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"resourceSpans":[null]}',
      });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(
        /^resourceSpans\[0\]: .*expected object/,
      );
      s.child.kill('SIGINT');
      const done = await s.done;
      expect(done.stdout).toMatch(/imported 1 run\(s\), 3 model call\(s\)/);
      expect(jsonl<RunRecord>(path.join(dir, 'runs.jsonl')).map((r) => r.run_id)).toEqual(['billing_via-gateway']);
    },
    patient(60_000),
  );

  it.each([
    [['--profile', 'x'], /--profile: not taken in gateway mode .*answers each request with the model it names/],
    [['--log', 'usage.jsonl'], /--log: not taken in gateway mode .*records every call in its results directory/],
    [['--error-rate', '0.5'], /--error-rate: not taken in gateway mode .*injects no faults/],
  ])('bench serve --out refuses %j with the reason instead of ignoring it', async (extra, message) => {
    const r = await spawnBench(['serve', '--port', '0', '--out', path.join(tmp, 'refused'), ...extra]).done;
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it('--traces on a host beyond loopback is refused (the route takes no credential)', async () => {
    const r = await spawnBench(['serve', '--host', '0.0.0.0', '--traces', path.join(tmp, 'x')]).done;
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--traces: only on a loopback --host/);
  });
});
