// `bench export --format otlp`: a sweep as OpenTelemetry GenAI spans, received span for span by a real
// OTLP/HTTP receiver on 127.0.0.1 (test/helpers/otlp-receiver.ts: OpenTelemetry's own protobuf
// decoders), every span and attribute checked against the records it came from.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunRecord, StepRecord } from '../src/contracts/records.ts';
import { splitFingerprint } from '../src/trajectories/fingerprint-parse.ts';
import { resolveScenario } from '../src/scenario/loader.ts';
import { SpanWriter } from '../src/trajectories/otlp-out.ts';
import { errorTypeOf } from '../src/trajectories/error-type.ts';
import { modelServersOf } from '../src/runner/transport.ts';
import { benchInProcess } from './helpers/cli.ts';
import { decodeRequest, OtlpReceiver, type AttrValue, type ReceivedSpan } from './helpers/otlp-receiver.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-otlp-export-'));
const jsonl = <T>(file: string): T[] =>
  fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as T);
const sweep = path.join(tmp, 'sweep');
let receiver: OtlpReceiver;
let runs: RunRecord[];
let steps: StepRecord[];

beforeAll(async () => {
  receiver = await OtlpReceiver.start();
  // A run that answers (and is checked), one the step limit stops, one the spin brake stops.
  const r = await benchInProcess([
    '--scenario',
    'tiny-agent-sum-of-squares,seed-calibrated,autogpt-recursive-verification',
    '--steps',
    '10',
    '-n',
    '1',
    '--out',
    sweep,
    '-q',
  ]);
  expect(r.code, r.stderr).toBe(0);
  runs = jsonl<RunRecord>(path.join(sweep, 'runs.jsonl'));
  steps = jsonl<StepRecord>(path.join(sweep, 'steps.jsonl'));
}, 60_000);
afterAll(async () => {
  await receiver.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** A scripted tool's description, as its scenario file says it. */
const descriptionOf = (scenario: string, tool: string): string | undefined => {
  const t = resolveScenario(scenario).tools.find((x) => x.name === tool);
  return t && 'description' in t ? t.description : undefined;
};

/** What each run's spans must be, from its records: one invoke_agent, a chat per call, an execute_tool per action. */
function expectedSpans(run: RunRecord): Array<
  Omit<ReceivedSpan, 'traceId' | 'spanId' | 'parentSpanId' | 'resource' | 'scope' | 'status'> & {
    parent: 'root' | null;
  }
> {
  const t0 = Date.parse(run.started_at);
  const own = steps.filter((s) => s.run_id === run.run_id).sort((a, b) => a.call - b.call);
  const brake = {
    max_steps: `max_steps=${run.settings.limits.max_steps}`,
    spin: `max_repeat=${run.settings.limits.max_repeat}`,
  }[run.stop_reason as string];
  const root = {
    name: `invoke_agent ${run.scenario}`,
    kind: 1,
    parent: null,
    startMs: t0,
    endMs: t0 + run.elapsed_ms,
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'loopbench.sim',
      'gen_ai.agent.name': run.scenario,
      'gen_ai.agent.id': run.config_id,
      'gen_ai.conversation.id': run.run_id,
      'gen_ai.request.model': 'sim',
      'gen_ai.usage.input_tokens': run.input_tokens,
      'gen_ai.usage.output_tokens': run.output_tokens,
      ...(run.cached_tokens ? { 'gen_ai.usage.cache_read.input_tokens': run.cached_tokens } : {}),
      'loopbench.run_id': run.run_id,
      'loopbench.config_id': run.config_id,
      'loopbench.scenario': run.scenario,
      'loopbench.stop_reason': run.stop_reason,
      'loopbench.stop_detail': run.stop_detail,
      'loopbench.stop_step': run.stop_step,
      ...(brake ? { 'loopbench.brake': brake } : {}),
      ...(run.success === null ? {} : { 'loopbench.success': run.success }),
      'loopbench.cost_usd': run.cost_usd,
      'loopbench.scenarios': JSON.parse(fs.readFileSync(path.join(sweep, 'meta.json'), 'utf8')).scenarios,
      'loopbench.record': JSON.stringify(run),
    } as Record<string, AttrValue>,
  };
  const out: ReturnType<typeof expectedSpans> = [root];
  own.forEach((s, i) => {
    const { settings: _s, ...record } = s;
    const end = t0 + s.elapsed_ms;
    out.push({
      name: 'chat sim',
      kind: 3,
      parent: 'root',
      startMs: end - s.latency_ms,
      endMs: end,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'loopbench.sim',
        'gen_ai.request.model': 'sim',
        'gen_ai.response.model': 'sim',
        'gen_ai.response.id': `${run.run_id}/call/${s.call}`,
        'gen_ai.request.seed': run.settings.seed,
        'gen_ai.conversation.id': run.run_id,
        'gen_ai.request.max_tokens': run.settings.max_output_tokens,
        'gen_ai.response.finish_reasons': [s.action ? 'tool_calls' : 'stop'],
        'gen_ai.usage.input_tokens': s.input_tokens,
        'gen_ai.usage.output_tokens': s.output_tokens,
        ...(s.cached_tokens ? { 'gen_ai.usage.cache_read.input_tokens': s.cached_tokens } : {}),
        'loopbench.run_id': run.run_id,
        'loopbench.step': s.step,
        'loopbench.call': s.call,
        'loopbench.round': s.round,
        'loopbench.role': s.role,
        'loopbench.cost_usd': s.cost_usd,
        'loopbench.cum_cost_usd': s.cum_cost_usd,
        'loopbench.record': JSON.stringify(record),
      },
    });
    const next = own[i + 1];
    const toolEnd = next ? t0 + next.elapsed_ms - next.latency_ms : t0 + run.elapsed_ms;
    (s.fingerprint ? splitFingerprint(s.fingerprint) : []).forEach((a, k) =>
      out.push({
        name: `execute_tool ${a.tool}`,
        kind: 1,
        parent: 'root',
        startMs: end,
        endMs: Math.max(end, toolEnd),
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': a.tool,
          'gen_ai.tool.call.id': `call_${s.call}_${k + 1}`,
          'gen_ai.tool.type': 'function',
          ...(descriptionOf(run.scenario, a.tool)
            ? { 'gen_ai.tool.description': descriptionOf(run.scenario, a.tool)! }
            : {}),
          'gen_ai.tool.call.arguments': typeof a.args === 'string' ? a.args : JSON.stringify(a.args),
          'loopbench.run_id': run.run_id,
          'loopbench.call': s.call,
        },
      }),
    );
  });
  return out;
}

/** Every received span matches the records, one trace per run, nothing more or less. */
function expectSpansOfSweep(received: ReceivedSpan[]) {
  expect(new Set(runs.map((r) => r.stop_reason))).toEqual(new Set(['done', 'max_steps', 'spin']));
  const total = runs.reduce((n, r) => n + expectedSpans(r).length, 0);
  expect(received).toHaveLength(total);
  for (const run of runs) {
    const mine = received.filter((s) => s.attributes['loopbench.run_id'] === run.run_id);
    const root = mine.find((s) => s.parentSpanId === '')!;
    expect(new Set(mine.map((s) => s.traceId))).toEqual(new Set([root.traceId]));
    // Sorted the same way on both sides: start time, then name.
    const order = (a: { startMs: number; name: string }, b: { startMs: number; name: string }) =>
      a.startMs - b.startMs || a.name.localeCompare(b.name);
    const want = expectedSpans(run).sort(order);
    const got = [...mine].sort(order);
    expect(
      got.map((s) => ({
        name: s.name,
        kind: s.kind,
        startMs: s.startMs,
        endMs: s.endMs,
        attributes: s.attributes,
        parent: s.parentSpanId === '' ? null : s.parentSpanId === root.spanId ? 'root' : s.parentSpanId,
      })),
    ).toEqual(want);
    for (const s of mine) {
      expect(s.resource).toEqual({ 'service.name': 'loopbench', 'service.version': expect.any(String) });
      expect(s.scope).toBe('loopbench');
      expect(s.spanId).toMatch(/^[0-9a-f]{16}$/);
    }
    expect(root.traceId).toMatch(/^[0-9a-f]{32}$/);
  }
}

describe('bench export --format otlp', () => {
  it('sends every run over OTLP/HTTP (protobuf) to a real receiver on loopback: every span and attribute as the records say', async () => {
    const r = await benchInProcess(['export', sweep, '--format', 'otlp', '--otlp-endpoint', receiver.url]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(`exported 3 run\\(s\\) as \\d+ span\\(s\\) to ${receiver.url}/v1/traces \\(http/protobuf\\)`),
    );
    expect(receiver.requests).toHaveLength(3);
    expect(receiver.requests.every((q) => q.contentType === 'application/x-protobuf')).toBe(true);
    expectSpansOfSweep(receiver.spans());
  });

  it('OTLP/JSON over HTTP, with the endpoint and headers from OTEL_EXPORTER_OTLP_*, and the same spans', async () => {
    const before = receiver.requests.length;
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-team=cost-review,authorization=Bearer lb-secret-1234567890',
    };
    Object.assign(process.env, env);
    try {
      const r = await benchInProcess(['export', sweep, '--format', 'otlp', '--otlp-endpoint']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout + r.stderr).not.toContain('lb-secret');
    } finally {
      for (const k of Object.keys(env)) delete process.env[k];
    }
    const sent = receiver.requests.slice(before);
    expect(
      sent.every(
        (q) =>
          q.contentType.startsWith('application/json') &&
          q.headers['x-team'] === 'cost-review' &&
          q.headers.authorization === 'Bearer lb-secret-1234567890',
      ),
    ).toBe(true);
    expectSpansOfSweep(sent.flatMap((q) => q.spans));
  });

  it('writes OTLP/JSON lines (one ExportTraceServiceRequest per run), the same spans with the same ids as sent', async () => {
    const file = path.join(tmp, 'traces.otlp.jsonl');
    const r = await benchInProcess(['export', sweep, '--format', 'otlp', '-o', file]);
    expect(r.code, r.stderr).toBe(0);
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(3);
    const fromFile = lines.flatMap((l) => decodeRequest(Buffer.from(l), 'application/json'));
    expectSpansOfSweep(fromFile);
    const key = (s: ReceivedSpan) => `${s.traceId}/${s.spanId}/${s.parentSpanId}`;
    expect(fromFile.map(key).sort()).toEqual(
      receiver.requests
        .slice(0, 3)
        .flatMap((q) => q.spans)
        .map(key)
        .sort(),
    );
  });

  it('bench run --otlp-endpoint streams each run as it ends: the same spans, ids and attributes as exporting the sweep afterwards', async () => {
    const rx = await OtlpReceiver.start();
    const dir = path.join(tmp, 'live');
    try {
      const r = await benchInProcess([
        '--scenario',
        'seed-calibrated,autogpt-recursive-verification',
        '--steps',
        '3,10',
        '-n',
        '2',
        '-j',
        '4',
        '--out',
        dir,
        '-q',
        '--otlp-endpoint',
        rx.url,
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(
        new RegExp(`bench: sent 8 run\\(s\\) as \\d+ span\\(s\\) to ${rx.url}/v1/traces \\(http/protobuf\\)`),
      );
      expect(rx.requests).toHaveLength(8);
      const file = path.join(tmp, 'live.otlp.jsonl');
      expect((await benchInProcess(['export', dir, '--format', 'otlp', '-o', file])).code).toBe(0);
      const exported = fs
        .readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .flatMap((l) => decodeRequest(Buffer.from(l), 'application/json'));
      const view = (s: ReceivedSpan) =>
        JSON.stringify([s.traceId, s.spanId, s.parentSpanId, s.name, s.kind, s.startMs, s.endMs, s.attributes]);
      expect(rx.spans().map(view).sort()).toEqual(exported.map(view).sort());
    } finally {
      await rx.close();
    }
  });

  it.each([
    [['--format', 'otlp', '--otlp-endpoint', 'grpc://127.0.0.1:4317'], /--otlp-endpoint: grpc: is not supported/],
    [
      ['--format', 'otlp', '--otlp-endpoint', 'http://127.0.0.1:1', '--otlp-protocol', 'grpc'],
      /--otlp-protocol: 'grpc' is not supported/,
    ],
    [['--format', 'otlp', '--otlp-endpoint'], /--otlp-endpoint: give a URL, or set OTEL_EXPORTER_OTLP_ENDPOINT/],
    [['--format', 'atif', '--otlp-endpoint', 'http://127.0.0.1:1'], /--otlp-endpoint: only with --format otlp/],
  ])('refuses %j in one line, exit 2', async (args, message) => {
    const r = await benchInProcess(['export', sweep, ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('an endpoint that refuses the spans is an error naming the run, exit 1, with no credential in it', async () => {
    const r = await benchInProcess([
      'export',
      sweep,
      '--format',
      'otlp',
      '--otlp-endpoint',
      `${receiver.url.replace('http://', 'http://user:hunter2secret@')}/nowhere`,
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the OTLP endpoint did not take the spans of run /);
    expect(r.stderr).not.toContain('hunter2secret');
  });

  it('a failed call and a failed run carry error.type as a short code (the message in the span status); cache writes and reasoning are exported and read back', async () => {
    const run0 = runs.find((r) => r.stop_reason === 'max_steps')!;
    const own = steps.filter((s) => s.run_id === run0.run_id).sort((a, b) => a.call - b.call);
    const failedStep = {
      ...own.at(-1)!,
      error: 'upstream answered HTTP 503: Service Unavailable',
      action: null,
      fingerprint: null,
      cache_write_tokens: 7,
      reasoning_tokens: 5,
    } as StepRecord;
    const run = {
      ...run0,
      stop_reason: 'error',
      stop_detail: 'the model call failed: Request timed out after 30000 ms',
    } as RunRecord;
    const file = path.join(tmp, 'failed.otlp.jsonl');
    const writer = new SpanWriter({ file, service: { name: 'loopbench', version: 'test' } });
    await writer.write(run, [...own.slice(0, -1), failedStep]);
    await writer.close();
    const spans = decodeRequest(fs.readFileSync(file), 'application/json');
    const root = spans.find((x) => x.name.startsWith('invoke_agent'))!;
    const failed = spans.find((x) => x.attributes['loopbench.call'] === failedStep.call && x.name.startsWith('chat'))!;
    expect(root.attributes['error.type']).toBe('timeout');
    expect(root.status).toBe(2);
    expect(failed.attributes).toMatchObject({
      'error.type': '503',
      'gen_ai.usage.cache_creation.input_tokens': 7,
      'gen_ai.usage.reasoning.output_tokens': 5,
    });
    expect(failed.status).toBe(2);
    const raw = JSON.parse(fs.readFileSync(file, 'utf8')).resourceSpans[0].scopeSpans[0].spans as Array<{
      name: string;
      status: { message?: string };
    }>;
    expect(
      raw
        .filter((x) => x.status.message)
        .map((x) => x.status.message)
        .sort(),
    ).toEqual([failedStep.error, run.stop_detail].sort());
    expect(
      spans
        .filter((x) => x.name.startsWith('chat') && x !== failed)
        .every((x) => x.attributes['error.type'] === undefined),
    ).toBe(true);
    // Read back from the standard attributes alone: the message from the status, the parts of the usage.
    const plain = path.join(tmp, 'failed-plain.otlp.jsonl');
    const req = JSON.parse(fs.readFileSync(file, 'utf8'));
    for (const rs of req.resourceSpans)
      for (const ss of rs.scopeSpans)
        for (const sp of ss.spans)
          sp.attributes = sp.attributes.filter((a: { key: string }) => !a.key.startsWith('loopbench.'));
    fs.writeFileSync(plain, `${JSON.stringify(req)}\n`);
    const back = path.join(tmp, 'failed-back');
    const r = await benchInProcess(['import', plain, '--format', 'otlp', '-o', back, '--no-report']);
    expect(r.code, r.stderr).toBe(0);
    const got = jsonl<StepRecord>(path.join(back, 'steps.jsonl')).at(-1)! as StepRecord & {
      cache_write_tokens?: number;
      reasoning_tokens?: number;
    };
    expect([got.error, got.cache_write_tokens, got.reasoning_tokens]).toEqual([failedStep.error, 7, 5]);
    expect(jsonl<RunRecord>(path.join(back, 'runs.jsonl'))[0]).toMatchObject({ stop_reason: 'error' });
  });

  it.each([
    ['upstream answered HTTP 500: internal error', '500'],
    ['429 Too Many Requests', '429'],
    ['Request timed out.', 'timeout'],
    ['APIConnectionError: Connection error.', 'APIConnectionError'],
    ['connect ECONNREFUSED 127.0.0.1:1', 'ECONNREFUSED'],
    ['something odd', '_OTHER'],
  ])('error.type of %j is %j', (message, code) => {
    expect(errorTypeOf(message)).toBe(code);
  });

  it('chat spans of a networked model say where its calls went (server.address, server.port), from meta.json, never a credential', async () => {
    const servers = modelServersOf({ grid: { model: ['openai:gpt-4o-mini', 'sim'] }, fixed: {} }, {
      baseURL: 'http://user:s3cret@127.0.0.1:8787/v1',
    } as never).model_servers!;
    expect(servers).toEqual({ openai: { address: '127.0.0.1', port: 8787 } });
    expect(modelServersOf({ grid: { model: ['anthropic:claude-x'] }, fixed: {} }, undefined).model_servers).toEqual({
      anthropic: { address: 'api.anthropic.com', port: 443 },
    });
    expect(modelServersOf({ grid: { model: ['sim'] }, fixed: {} }, undefined)).toEqual({});
    const run0 = runs[0]!;
    const run = { ...run0, settings: { ...run0.settings, model: 'openai:gpt-4o-mini' } } as RunRecord;
    const file = path.join(tmp, 'served.otlp.jsonl');
    const writer = new SpanWriter({ file, service: { name: 'loopbench', version: 'test' } });
    await writer.write(
      run,
      steps.filter((x) => x.run_id === run.run_id),
      { servers },
    );
    await writer.close();
    const spans = decodeRequest(fs.readFileSync(file), 'application/json');
    const chats = spans.filter((x) => x.name.startsWith('chat'));
    expect(chats.length).toBeGreaterThan(0);
    expect(
      chats.every(
        (x) =>
          x.attributes['server.address'] === '127.0.0.1' &&
          x.attributes['server.port'] === 8787 &&
          x.attributes['gen_ai.response.model'] === 'gpt-4o-mini',
      ),
    ).toBe(true);
    expect(fs.readFileSync(file, 'utf8')).not.toContain('s3cret');
  });
});
