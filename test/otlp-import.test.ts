// `bench import --format otlp`: OpenTelemetry GenAI traces → runs. A loopbench export comes back as the
// very records; other instrumentations' spans (GenAI conventions, OpenLLMetry's older names,
// OpenInference's) become runs from their standard attributes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunRecord, StepRecord } from '../src/contracts/records.ts';
import { benchInProcess } from './helpers/cli.ts';
import { patient } from './helpers/patient.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-otlp-import-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const jsonl = <T>(file: string): T[] =>
  fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as T);
const sortLines = (f: string) => fs.readFileSync(f, 'utf8').trim().split('\n').sort();

describe('a sweep exported as OTLP and imported again', () => {
  const sweep = path.join(tmp, 'sweep');
  const file = path.join(tmp, 'sweep.otlp.jsonl');

  beforeAll(async () => {
    expect(
      (
        await benchInProcess([
          '--scenario',
          'seed-calibrated,autogpt-recursive-verification',
          '--steps',
          '4,10',
          '-n',
          '2',
          '--out',
          sweep,
          '-q',
        ])
      ).code,
    ).toBe(0);
    expect((await benchInProcess(['export', sweep, '--format', 'otlp', '-o', file])).code).toBe(0);
  }, patient(60_000));

  it('gives identical records and the same reports', async () => {
    const back = path.join(tmp, 'back');
    const r = await benchInProcess(['import', file, '--format', 'otlp', '-o', back]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/imported 8 run\(s\)/);
    for (const f of ['runs.jsonl', 'steps.jsonl'])
      expect(sortLines(path.join(back, f)), f).toEqual(sortLines(path.join(sweep, f)));
    for (const f of ['summary.csv', 'fit.csv', 'step_ratios.csv', 'steps_by_index.csv'])
      expect(fs.readFileSync(path.join(back, f), 'utf8'), f).toBe(fs.readFileSync(path.join(sweep, f), 'utf8'));
  });

  it('written to a file named without an extension (as users name it), it imports back whole: the same runs, steps and totals', async () => {
    const bare = path.join(tmp, 'traces');
    expect((await benchInProcess(['export', sweep, '--format', 'otlp', '-o', bare])).code).toBe(0);
    expect(fs.readFileSync(bare, 'utf8').trim().split('\n').length).toBeGreaterThan(1);
    const back = path.join(tmp, 'bare-back');
    const r = await benchInProcess(['import', bare, '--format', 'otlp', '-o', back, '--no-report']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/imported 8 run\(s\)/);
    for (const f of ['runs.jsonl', 'steps.jsonl'])
      expect(sortLines(path.join(back, f)), f).toEqual(sortLines(path.join(sweep, f)));
  });

  it('with a byte order mark and CRLF line ends (as Windows editors save it), it imports the same', async () => {
    const bom = path.join(tmp, 'bom.jsonl');
    fs.writeFileSync(bom, `\uFEFF${fs.readFileSync(file, 'utf8').trim().split('\n').join('\r\n')}\r\n`);
    const back = path.join(tmp, 'bom-back');
    const r = await benchInProcess(['import', bom, '--format', 'otlp', '-o', back, '--no-report']);
    expect(r.code, r.stderr).toBe(0);
    for (const f of ['runs.jsonl', 'steps.jsonl'])
      expect(sortLines(path.join(back, f)), f).toEqual(sortLines(path.join(sweep, f)));
    // One pretty-printed request with a BOM: one document, streamed.
    const doc = path.join(tmp, 'bom-doc.json');
    fs.writeFileSync(
      doc,
      `\uFEFF${JSON.stringify(JSON.parse(fs.readFileSync(file, 'utf8').split('\n')[0]!), null, 2)}`,
    );
    const one = await benchInProcess([
      'import',
      doc,
      '--format',
      'otlp',
      '-o',
      path.join(tmp, 'bom-doc'),
      '--no-report',
    ]);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toMatch(/imported 1 run\(s\)/);
  });

  it('the same file given twice is imported once (identical records are duplicates)', async () => {
    const back = path.join(tmp, 'twice');
    const r = await benchInProcess(['import', file, file, '--format', 'otlp', '-o', back, '--no-report']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/imported 8 run\(s\)/);
    expect(r.stderr).toMatch(/span\(s\) came twice, byte for byte: each counted once/);
  });

  it('from the standard GenAI attributes alone (loopbench.* stripped, as another tool would send them), tokens, latency and actions survive', async () => {
    const plain = path.join(tmp, 'plain.otlp.jsonl');
    const strip = (line: string) => {
      const req = JSON.parse(line);
      for (const rs of req.resourceSpans)
        for (const ss of rs.scopeSpans)
          for (const s of ss.spans)
            s.attributes = s.attributes.filter((a: { key: string }) => !a.key.startsWith('loopbench.'));
      return JSON.stringify(req);
    };
    fs.writeFileSync(plain, fs.readFileSync(file, 'utf8').trim().split('\n').map(strip).join('\n'));
    const back = path.join(tmp, 'plain-back');
    const r = await benchInProcess(['import', plain, '--format', 'otlp', '-o', back, '--no-report']);
    expect(r.code, r.stderr).toBe(0);
    const key = (s: StepRecord) => [
      s.call,
      s.input_tokens,
      s.output_tokens,
      s.cached_tokens,
      s.latency_ms,
      s.fingerprint,
    ];
    const byRun = (dir: string, id: (s: StepRecord) => string) => {
      const m = new Map<string, unknown[]>();
      for (const s of jsonl<StepRecord>(path.join(dir, 'steps.jsonl'))) m.set(id(s), [...(m.get(id(s)) ?? []), key(s)]);
      return m;
    };
    // Runs are named by their gen_ai.conversation.id (the original run id) under the agent's name.
    expect(byRun(back, (s) => s.run_id.slice(s.run_id.indexOf('_') + 1))).toEqual(byRun(sweep, (s) => s.run_id));
    const runs = jsonl<RunRecord>(path.join(back, 'runs.jsonl'));
    // Why a run stopped is loopbench's own attribute: without it, a run that ends on a tool call says it does not know.
    expect(new Set(runs.map((x) => x.stop_reason))).toEqual(new Set(['imported']));
  });
});

/** OTLP/JSON attribute lists. */
const kv = (o: Record<string, string | number | string[]>) =>
  Object.entries(o).map(([key, v]) => ({
    key,
    value: Array.isArray(v)
      ? { arrayValue: { values: v.map((x) => ({ stringValue: x })) } }
      : typeof v === 'number'
        ? Number.isInteger(v)
          ? { intValue: String(v) }
          : { doubleValue: v }
        : { stringValue: v },
  }));
const ns = (ms: number) => `${BigInt(Date.parse('2026-05-04T10:00:00Z') + ms) * 1_000_000n}`;
const span = (
  trace: string,
  id: string,
  parent: string,
  name: string,
  from: number,
  to: number,
  attributes: Record<string, string | number | string[]>,
) => ({
  traceId: trace,
  spanId: id,
  parentSpanId: parent,
  name,
  kind: 1,
  startTimeUnixNano: ns(from),
  endTimeUnixNano: ns(to),
  attributes: kv(attributes),
});
const request = (service: string, spans: unknown[]) => ({
  resourceSpans: [
    { resource: { attributes: kv({ 'service.name': service }) }, scopeSpans: [{ scope: { name: 'x' }, spans }] },
  ],
});

describe('traces from other instrumentations', () => {
  const T1 = 'a'.repeat(32);
  const T2 = 'b'.repeat(32);

  it('GenAI-convention and OpenLLMetry spans spread over batches, with HTTP spans between agent and calls, become one run per invoke_agent', async () => {
    const file = path.join(tmp, 'collector.jsonl');
    const agent = span(T1, '1'.repeat(16), '', 'invoke_agent triage', 0, 9000, {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'triage',
      'gen_ai.conversation.id': 'ticket-7',
    });
    const http1 = span(T1, '2'.repeat(16), '1'.repeat(16), 'POST', 100, 1200, { 'http.request.method': 'POST' });
    const chat1 = span(T1, '3'.repeat(16), '2'.repeat(16), 'chat gpt-4o-mini', 100, 1100, {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.usage.input_tokens': 1200,
      'gen_ai.usage.output_tokens': 80,
      'gen_ai.usage.cache_read.input_tokens': 1000,
      'gen_ai.response.finish_reasons': ['tool_calls'],
    });
    const tool = span(T1, '4'.repeat(16), '1'.repeat(16), 'execute_tool lookup', 1200, 1500, {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup',
      'gen_ai.tool.call.arguments': '{"id":7}',
    });
    // An OpenLLMetry-style call: the system and the older token names.
    const chat2 = span(T1, '5'.repeat(16), '1'.repeat(16), 'openai.chat', 1600, 2600, {
      'gen_ai.system': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.usage.prompt_tokens': 1400,
      'gen_ai.usage.completion_tokens': 40,
      'gen_ai.response.finish_reasons': ['stop'],
    });
    const other = span(T2, '6'.repeat(16), '', 'chat gpt-4o-mini', 0, 500, {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.usage.input_tokens': 10,
      'gen_ai.usage.output_tokens': 5,
    });
    // Batches by end time, as a collector writes them: the agent span last.
    fs.writeFileSync(
      file,
      [request('svc', [chat1, http1, other]), request('svc', [tool, chat2]), request('svc', [agent])]
        .map((x) => JSON.stringify(x))
        .join('\n') + '\n{"not":"otlp"}\n',
    );
    const out = path.join(tmp, 'collector');
    // A line skipped is input lost: exit 2 unless --skip-bad accepts it.
    const strict = await benchInProcess(['import', file, '--format', 'otlp', '-o', out, '--no-report']);
    expect(strict.code).toBe(2);
    expect(strict.stderr).toMatch(/the import is incomplete: 1 part\(s\) of the input were skipped .*--skip-bad/);
    const r = await benchInProcess([
      'import',
      file,
      '--format',
      'otlp',
      '-o',
      out,
      '--no-report',
      '--force',
      '--skip-bad',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `bench: skipped ${file}:4: resourceSpans: missing (expected an OTLP ExportTraceServiceRequest)`,
    );
    const runs = jsonl<RunRecord>(path.join(out, 'runs.jsonl'));
    const triage = runs.find((x) => x.run_id === 'triage_ticket-7')!;
    expect([
      triage.steps,
      triage.input_tokens,
      triage.output_tokens,
      triage.cached_tokens,
      triage.stop_reason,
      triage.settings.model,
    ]).toEqual([2, 2600, 120, 1000, 'done', 'imported:gpt-4o-mini']);
    // Priced from the table as gpt-4o-mini, by hand: (200·0.15 + 1000·0.075 + 1400·0.15 + 120·0.6) / 1e6.
    expect(triage.cost_usd).toBeCloseTo((200 * 0.15 + 1000 * 0.075 + 1400 * 0.15 + 120 * 0.6) / 1e6, 15);
    const steps = jsonl<StepRecord>(path.join(out, 'steps.jsonl')).filter((s) => s.run_id === triage.run_id);
    expect(steps.map((s) => [s.latency_ms, s.elapsed_ms, s.fingerprint])).toEqual([
      [1000, 1100, 'lookup({"id":7})'],
      [1000, 2600, null],
    ]);
    // Each call's time is its span's start (the spend-by-day table files it by it).
    expect(steps.map((s) => s.at)).toEqual(['2026-05-04T10:00:00.100Z', '2026-05-04T10:00:01.600Z']);
    // A trace without an agent span is one run, named after the service.
    expect(runs.find((x) => x.run_id === `svc_${T2}`)).toMatchObject({ steps: 1, stop_reason: 'done' });
  });

  it('OpenInference spans in one streamed OTLP/JSON file (LLM, TOOL, AGENT kinds)', async () => {
    const file = path.join(tmp, 'phoenix.json');
    const spans = [
      span(T1, '1'.repeat(16), '', 'agent', 0, 5000, { 'openinference.span.kind': 'AGENT', 'session.id': 's-1' }),
      span(T1, '2'.repeat(16), '1'.repeat(16), 'ChatCompletion', 0, 800, {
        'openinference.span.kind': 'LLM',
        'llm.model_name': 'gpt-4o',
        'llm.token_count.prompt': 500,
        'llm.token_count.completion': 50,
      }),
      span(T1, '3'.repeat(16), '1'.repeat(16), 'search', 900, 1000, {
        'openinference.span.kind': 'TOOL',
        'tool.name': 'search',
        'tool.parameters': '{"q":"x"}',
      }),
      span(T1, '4'.repeat(16), '1'.repeat(16), 'ChatCompletion', 1100, 2000, {
        'openinference.span.kind': 'LLM',
        'llm.model_name': 'gpt-4o',
        'llm.token_count.prompt': 700,
        'llm.token_count.completion': 20,
      }),
    ];
    fs.writeFileSync(file, JSON.stringify(request('phoenix-app', spans), null, 1));
    const out = path.join(tmp, 'phoenix');
    const r = await benchInProcess(['import', file, '--format', 'otlp', '--scenario', 'rag', '-o', out, '--no-report']);
    expect(r.code, r.stderr).toBe(0);
    const [run] = jsonl<RunRecord>(path.join(out, 'runs.jsonl'));
    expect([run!.run_id, run!.steps, run!.input_tokens, run!.settings.model, run!.stop_reason]).toEqual([
      'rag_s-1',
      2,
      1200,
      'imported:gpt-4o',
      'done',
    ]);
    expect(jsonl<StepRecord>(path.join(out, 'steps.jsonl')).map((s) => s.fingerprint)).toEqual([
      'search({"q":"x"})',
      null,
    ]);
  });

  it('a count past the ceiling, negative or NaN is refused with file, line and field, never priced; its trace is not imported', async () => {
    const file = path.join(tmp, 'absurd.jsonl');
    const call = (trace: string, input: number | string) =>
      span(trace, '1'.repeat(16), '', 'chat gpt-4o', 0, 500, {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.usage.input_tokens': input,
        'gen_ai.usage.output_tokens': 10,
      });
    const lines = [
      request('svc', [call(T1, 1e18)]),
      request('svc', [call(T2, 100)]),
      request('svc', [call('c'.repeat(32), -3)]),
    ];
    fs.writeFileSync(
      file,
      lines
        .map((x) => JSON.stringify(x))
        .join('\n')
        .replace('"intValue":"-3"', '"doubleValue":"NaN"') + '\n',
    );
    const out = path.join(tmp, 'absurd');
    const r = await benchInProcess(['import', file, '--format', 'otlp', '-o', out, '--no-report']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `bench: skipped ${file}:1: resourceSpans[0].scopeSpans[0].spans[0].attributes[2].value: gen_ai.usage.input_tokens "1000000000000000000" is over the ceiling of 1,000,000,000 tokens a call`,
    );
    expect(r.stderr).toContain(
      `bench: skipped ${file}:3: resourceSpans[0].scopeSpans[0].spans[0].attributes[2].value: gen_ai.usage.input_tokens "NaN" is not a number`,
    );
    expect(r.stdout).toMatch(
      /imported 1 run\(s\), 1 agent step\(s\); 2 file\(s\), line\(s\), span\(s\) or trace\(s\) skipped/,
    );
    const runs = jsonl<RunRecord>(path.join(out, 'runs.jsonl'));
    expect(runs.map((x) => [x.run_id, x.input_tokens])).toEqual([[`svc_${T2}`, 100]]);
    expect(Math.max(...runs.map((x) => x.cost_usd))).toBeLessThan(0.01);
  });

  it('repeated conversation ids with different spans are trials, each kept and numbered', async () => {
    const file = path.join(tmp, 'trials.jsonl');
    const call = (trace: string, input: number) =>
      span(trace, '1'.repeat(16), '', 'chat gpt-4o', 0, 500, {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.conversation.id': 'task-1',
        'gen_ai.usage.input_tokens': input,
        'gen_ai.usage.output_tokens': 10,
      });
    fs.writeFileSync(
      file,
      [request('svc', [call(T1, 100)]), request('svc', [call(T2, 200)]), request('svc', [call('c'.repeat(32), 300)])]
        .map((x) => JSON.stringify(x))
        .join('\n'),
    );
    const out = path.join(tmp, 'trials');
    const r = await benchInProcess(['import', file, '--format', 'otlp', '-o', out, '--no-report']);
    expect(r.code, r.stderr).toBe(0);
    const runs = jsonl<RunRecord>(path.join(out, 'runs.jsonl'));
    expect(runs.map((x) => x.run_id).sort()).toEqual(['svc_task-1', 'svc_task-1.trial2', 'svc_task-1.trial3']);
    expect(runs.map((x) => x.input_tokens).sort()).toEqual([100, 200, 300]);
    expect(r.stderr.split('\n').filter((l) => l.includes('trial'))).toHaveLength(1);
    expect(r.stderr).toMatch(
      /note: 2 run\(s\) share an id with an earlier one but differ from it: each is kept as another trial of the same task, numbered <id>\.trial2, \.trial3 … \(the first: svc_task-1\.trial2\)/,
    );
  });

  it('a streamed document with a wrong shape names each bad field; none vanishes without a word', async () => {
    const file = path.join(tmp, 'shapes.json');
    fs.writeFileSync(
      file,
      JSON.stringify(
        { resourceSpans: [{ resource: {}, scopeSpans: 5 }, null, { scopeSpans: [{ spans: [7] }] }] },
        null,
        2,
      ),
    );
    const r = await benchInProcess(['import', file, '--format', 'otlp', '-o', path.join(tmp, 'shapes'), '--no-report']);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('bench: skipped'))).toEqual([
      `bench: skipped ${file}: resourceSpans[0].scopeSpans: expected an array, got number`,
      `bench: skipped ${file}: resourceSpans[1]: expected an object, got null`,
      expect.stringMatching(
        new RegExp(
          `^bench: skipped ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: resourceSpans\\[2\\]\\.scopeSpans\\[0\\]\\.spans\\[0\\]: .*expected object`,
        ),
      ),
    ]);
  });

  it('a file that is not OTLP is one line, quoting nothing', async () => {
    const file = path.join(tmp, 'secret.json');
    fs.writeFileSync(file, 'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMIK7MDENG');
    const r = await benchInProcess(['import', file, '--format', 'otlp', '-o', path.join(tmp, 'secret')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`bench: skipped ${file}: not JSON (byte 0: expected a JSON value)`);
    expect(r.stderr).not.toContain('wJalr');
  });
});
