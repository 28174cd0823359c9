// Spend per day and per model of imported coding-agent logs (what ccusage's daily and per-model reports
// give): sessions whose calls span midnight and change model, in Claude Code's and Codex's formats. Every
// figure is held to a sum the test takes itself from the calls it wrote and the LiteLLM map's rates.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { StepRecord } from '../src/contracts/records.ts';
import { benchInProcess } from './helpers/cli.ts';
import { readCsv } from './helpers/csv.ts';
import { dayIn } from '../src/report/stats/spend.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-spend-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const lines = (vs: object[]) => vs.map((v) => JSON.stringify(v)).join('\n') + '\n';

/** LiteLLM's rates, USD per token, read here from the file the import prices with. */
type Rates = Record<string, number | undefined>;
const RATES = JSON.parse(
  fs.readFileSync(path.join(import.meta.dirname, '..', 'data', 'litellm-prices.json'), 'utf8'),
) as Record<string, Rates>;
const rate = (model: string, key: string): number => RATES[model]![key] ?? 0;

/** One model call as the test wrote it: its usage in the log's own terms, and what it must add up to. */
interface Call {
  at: string;
  model: string;
  /** Input tokens in all (cache reads and writes among them). */
  input: number;
  read: number;
  write: number;
  write1h: number;
  output: number;
  reasoning: number;
  cost: number;
}

interface Sums {
  calls: number;
  input_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
  cache_write_1h_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  cost_usd: number;
}

/** The expected rows: the calls grouped by `key`, summed here. */
function expected<C extends Call>(calls: readonly C[], key: (c: C) => string): Map<string, Sums> {
  const out = new Map<string, Sums>();
  for (const c of calls) {
    const k = key(c);
    const s = out.get(k) ?? {
      calls: 0,
      input_tokens: 0,
      cached_tokens: 0,
      cache_write_tokens: 0,
      cache_write_1h_tokens: 0,
      output_tokens: 0,
      reasoning_tokens: 0,
      cost_usd: 0,
    };
    s.calls++;
    s.input_tokens += c.input;
    s.cached_tokens += c.read;
    s.cache_write_tokens += c.write + c.write1h;
    s.cache_write_1h_tokens += c.write1h;
    s.output_tokens += c.output;
    s.reasoning_tokens += c.reasoning;
    s.cost_usd += c.cost;
    out.set(k, s);
  }
  return out;
}

function expectRows(rows: Array<Record<string, string>>, keyColumn: string, want: Map<string, Sums>): void {
  expect(rows.map((r) => r[keyColumn]).sort()).toEqual([...want.keys()].sort());
  for (const r of rows) {
    const w = want.get(r[keyColumn]!)!;
    const { cost_usd, ...counts } = w;
    for (const [k, v] of Object.entries(counts)) expect(Number(r[k]), `${r[keyColumn]} ${k}`).toBe(v);
    expect(Number(r.cost_usd)).toBeCloseTo(cost_usd, 12);
  }
}

const day = (at: string) => at.slice(0, 10);

// Claude Code: session one runs from 23:50 on 1 December past midnight, Sonnet with a Haiku call between;
// session two is on 2 December, Haiku only. Each answer is logged one line per content block.
const S1 = '11111111-2222-3333-4444-555555555555';
const S2 = '99999999-8888-7777-6666-555555555555';
const claudeCalls: Array<Call & { session: string; id: string }> = [];
function claudeCall(session: string, id: string, at: string, model: string, u: number[]): object[] {
  const [input, read, w5, w1, output] = u as [number, number, number, number, number];
  const m = model.replace(/-\d{8}$/, '');
  claudeCalls.push({
    session,
    id,
    at,
    model,
    input: input + read + w5 + w1,
    read,
    write: w5,
    write1h: w1,
    output,
    reasoning: 0,
    cost:
      input * rate(m, 'input_cost_per_token') +
      read * rate(m, 'cache_read_input_token_cost') +
      w5 * rate(m, 'cache_creation_input_token_cost') +
      w1 * rate(m, 'cache_creation_input_token_cost_above_1hr') +
      output * rate(m, 'output_cost_per_token'),
  });
  const usage = {
    input_tokens: input,
    cache_read_input_tokens: read,
    cache_creation_input_tokens: w5 + w1,
    cache_creation: { ephemeral_5m_input_tokens: w5, ephemeral_1h_input_tokens: w1 },
    output_tokens: output,
  };
  const blocks = [
    { type: 'text', text: 'Looking.' },
    { type: 'tool_use', id: `t-${id}`, name: 'Bash', input: { command: `echo ${id}` } },
  ];
  return blocks.map((b, i) => ({
    type: 'assistant',
    sessionId: session,
    uuid: `${id}-${i}`,
    timestamp: at,
    version: '2.1.197',
    message: { id, model, role: 'assistant', content: [b], usage },
  }));
}
const userLine = (session: string, at: string) => ({
  type: 'user',
  sessionId: session,
  uuid: `u-${at}`,
  timestamp: at,
  message: { role: 'user', content: 'go' },
});

describe('dayIn UTC', () => {
  it('gives each time its own UTC day, across midnight both ways and before 1970, as toISOString does', () => {
    const day = dayIn('UTC');
    const midnight = Date.UTC(2026, 11, 2);
    const times = [
      midnight - 1,
      midnight,
      midnight - 1,
      midnight + 86_399_999,
      midnight + 86_400_000,
      -1,
      0,
      -86_400_001,
    ];
    expect(times.map(day)).toEqual(times.map((ms) => new Date(ms).toISOString().slice(0, 10)));
    expect(() => day(Number.NaN)).toThrow(RangeError);
  });
});

describe('Claude Code logs: spend per day and per model', () => {
  const dir = path.join(tmp, 'claude');
  fs.mkdirSync(path.join(dir, 'project'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'project', `${S1}.jsonl`),
    lines([
      userLine(S1, '2026-12-01T23:49:00.000Z'),
      ...claudeCall(S1, 'msg_1', '2026-12-01T23:50:00.000Z', 'claude-sonnet-4-5-20250929', [12, 0, 9000, 2000, 300]),
      userLine(S1, '2026-12-01T23:50:30.000Z'),
      ...claudeCall(S1, 'msg_2', '2026-12-01T23:58:00.000Z', 'claude-haiku-4-5-20251001', [40, 0, 500, 0, 80]),
      userLine(S1, '2026-12-01T23:59:00.000Z'),
      ...claudeCall(S1, 'msg_3', '2026-12-02T00:05:00.000Z', 'claude-sonnet-4-5-20250929', [7, 11000, 150, 0, 420]),
      userLine(S1, '2026-12-02T00:05:30.000Z'),
      ...claudeCall(S1, 'msg_4', '2026-12-02T00:06:00.000Z', 'claude-sonnet-4-5-20250929', [3, 11150, 0, 600, 90]),
    ]),
  );
  fs.writeFileSync(
    path.join(dir, 'project', `${S2}.jsonl`),
    lines([
      userLine(S2, '2026-12-02T09:00:00.000Z'),
      ...claudeCall(S2, 'msg_5', '2026-12-02T09:00:05.000Z', 'claude-haiku-4-5-20251001', [25, 0, 4000, 0, 60]),
      userLine(S2, '2026-12-02T09:00:10.000Z'),
      ...claudeCall(S2, 'msg_6', '2026-12-02T09:01:00.000Z', 'claude-haiku-4-5-20251001', [5, 4000, 90, 0, 200]),
    ]),
  );
  const out = path.join(tmp, 'out-claude');

  it('each call carries its own time and model; the days split a session at midnight (UTC), the models split it by model', async () => {
    const r = await benchInProcess(['import', '--format', 'claude-code', dir, '-o', out, '--no-what-if']);
    expect(r.code, r.stderr).toBe(0);
    const steps = fs
      .readFileSync(path.join(out, 'steps.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as StepRecord);
    expect(steps.map((s) => [s.at, s.model]).sort()).toEqual(claudeCalls.map((c) => [c.at, c.model]).sort());
    expectRows(
      readCsv(path.join(out, 'spend_by_day.csv')),
      'day',
      expected(claudeCalls, (c) => day(c.at)),
    );
    expectRows(
      readCsv(path.join(out, 'spend_by_model.csv')),
      'model',
      expected(claudeCalls, (c) => c.model),
    );
    // The day's models are the ones its calls used, whichever session made them.
    expect(Object.fromEntries(readCsv(path.join(out, 'spend_by_day.csv')).map((r) => [r.day, r.models]))).toEqual({
      '2026-12-01': 'claude-haiku-4-5-20251001, claude-sonnet-4-5-20250929',
      '2026-12-02': 'claude-haiku-4-5-20251001, claude-sonnet-4-5-20250929',
    });
    // Per session: runs.csv, one row per session, its cost the sum of that session's calls.
    const bySession = expected(claudeCalls, (c) => `claude-code_${c.session}`);
    expectRows(readCsv(path.join(out, 'runs.csv')), 'run_id', bySession);
    const md = fs.readFileSync(path.join(out, 'summary.md'), 'utf8');
    expect(md).toContain('### Spend by day');
    expect(md).toMatch(/\| 2026-12-01 \| claude-haiku-4-5-20251001, claude-sonnet-4-5-20250929 \| 2 \|/);
    expect(md).toContain('### Spend by model');
    const html = fs.readFileSync(path.join(out, 'report.html'), 'utf8');
    expect(html).toContain('<section id="spend">');
    expect(html).toContain('day (UTC)');
  });

  it('--timezone takes the days in another zone: 00:05 UTC on 2 December is 1 December in New York', async () => {
    const r = await benchInProcess(['report', out, '--timezone', 'America/New_York']);
    expect(r.code, r.stderr).toBe(0);
    // New York is UTC−5 in December (no daylight saving).
    const nyDay = (at: string) => day(new Date(Date.parse(at) - 5 * 3600_000).toISOString());
    expectRows(
      readCsv(path.join(out, 'spend_by_day.csv')),
      'day',
      expected(claudeCalls, (c) => nyDay(c.at)),
    );
    expect(fs.readFileSync(path.join(out, 'summary.md'), 'utf8')).toContain('day (America/New_York)');
    const bad = await benchInProcess(['report', out, '--timezone', 'Mars/Olympus']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--timezone Mars/Olympus: not a time zone');
  });

  it("bench import --timezone is kept in meta.json: a later bench report takes the import's days unless told another zone", async () => {
    const kept = path.join(tmp, 'out-claude-ny');
    const r = await benchInProcess([
      'import',
      '--format',
      'claude-code',
      dir,
      '-o',
      kept,
      '--no-report',
      '--timezone',
      'America/New_York',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(kept, 'meta.json'), 'utf8')).imported.timezone).toBe(
      'America/New_York',
    );
    const nyDay = (at: string) => day(new Date(Date.parse(at) - 5 * 3600_000).toISOString());
    expect((await benchInProcess(['report', kept])).code).toBe(0);
    expectRows(
      readCsv(path.join(kept, 'spend_by_day.csv')),
      'day',
      expected(claudeCalls, (c) => nyDay(c.at)),
    );
    expect((await benchInProcess(['report', kept, '--timezone', 'UTC'])).code).toBe(0);
    expectRows(
      readCsv(path.join(kept, 'spend_by_day.csv')),
      'day',
      expected(claudeCalls, (c) => day(c.at)),
    );
  });
});

describe('a damaged time', () => {
  it('a step whose at is not a time is named with its file, line and field, never filed under a made-up day', async () => {
    const out = path.join(tmp, 'out-claude');
    const damaged = path.join(tmp, 'damaged');
    fs.cpSync(out, damaged, { recursive: true });
    const file = path.join(damaged, 'steps.jsonl');
    const [first, ...rest] = fs.readFileSync(file, 'utf8').split('\n');
    fs.writeFileSync(file, [JSON.stringify({ ...JSON.parse(first!), at: 'yesterday' }), ...rest].join('\n'));
    const r = await benchInProcess(['report', damaged]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'steps.jsonl line 1: at is "yesterday" (a string), expected an ISO 8601 time, or absent',
    );
  });
});

describe('Codex logs: spend per day and per model', () => {
  const codexCalls: Call[] = [];
  const ID = 'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee';
  /** A call's usage record, OpenAI's way (input includes the cached part, output the reasoning). */
  function usageRecord(at: string, model: string, input: number, cached: number, output: number, reasoning: number) {
    codexCalls.push({
      at,
      model,
      input,
      read: cached,
      write: 0,
      write1h: 0,
      output,
      reasoning,
      cost:
        (input - cached) * rate(model, 'input_cost_per_token') +
        cached * rate(model, 'cache_read_input_token_cost') +
        output * rate(model, 'output_cost_per_token'),
    });
    return {
      timestamp: at,
      type: 'token_usage_record',
      payload: {
        usage: {
          input_tokens: input,
          cached_input_tokens: cached,
          output_tokens: output,
          reasoning_output_tokens: reasoning,
        },
      },
    };
  }

  it('a session that changes model after midnight is split by day and by model', async () => {
    const dir = path.join(tmp, 'codex', '2026', '12', '01');
    fs.mkdirSync(dir, { recursive: true });
    const t = (s: string) => `2026-12-0${s}Z`;
    fs.writeFileSync(
      path.join(dir, `rollout-2026-12-01T23-40-00-${ID}.jsonl`),
      lines([
        { timestamp: t('1T23:40:00.000'), type: 'session_meta', payload: { id: ID, cli_version: '0.171.0' } },
        { timestamp: t('1T23:40:00.000'), type: 'turn_context', payload: { model: 'gpt-4o' } },
        usageRecord(t('1T23:41:00.000'), 'gpt-4o', 5000, 0, 200, 0),
        usageRecord(t('1T23:59:59.000'), 'gpt-4o', 5400, 4992, 150, 0),
        { timestamp: t('2T00:10:00.000'), type: 'turn_context', payload: { model: 'o4-mini' } },
        usageRecord(t('2T00:10:30.000'), 'o4-mini', 6000, 5376, 900, 640),
        usageRecord(t('2T00:11:00.000'), 'o4-mini', 6300, 5888, 120, 64),
      ]),
    );
    const out = path.join(tmp, 'out-codex');
    const r = await benchInProcess(['import', '--format', 'codex', path.join(tmp, 'codex'), '-o', out, '--no-what-if']);
    expect(r.code, r.stderr).toBe(0);
    expectRows(
      readCsv(path.join(out, 'spend_by_day.csv')),
      'day',
      expected(codexCalls, (c) => day(c.at)),
    );
    expectRows(
      readCsv(path.join(out, 'spend_by_model.csv')),
      'model',
      expected(codexCalls, (c) => c.model),
    );
    // The dearer model first.
    const byModel = expected(codexCalls, (c) => c.model);
    expect(readCsv(path.join(out, 'spend_by_model.csv')).map((row) => row.model)).toEqual(
      [...byModel].sort(([, a], [, b]) => b.cost_usd - a.cost_usd).map(([m]) => m),
    );
  });
});

describe("ATIF trajectories: spend per day from the steps' timestamps", () => {
  it("each agent step on the day of its timestamp (offsets read), under the trajectory's model", async () => {
    const dir = path.join(tmp, 'atif');
    fs.mkdirSync(dir);
    const agent = (step_id: number, timestamp: string, prompt: number, completion: number, cost: number) => ({
      step_id,
      timestamp,
      source: 'agent',
      message: 'ok',
      metrics: { prompt_tokens: prompt, completion_tokens: completion, cached_tokens: 0, cost_usd: cost },
    });
    const steps = [
      agent(2, '2026-12-01T23:30:00+00:00', 100, 10, 0.25),
      // 01:10 in UTC+2 is 23:10 UTC on 1 December.
      agent(3, '2026-12-02T01:10:00+02:00', 200, 20, 0.5),
      agent(4, '2026-12-02T00:20:00Z', 300, 30, 1),
    ];
    fs.writeFileSync(
      path.join(dir, 'run.json'),
      JSON.stringify({
        schema_version: 'ATIF-v1.4',
        session_id: 'atif-1',
        agent: { name: 'other-agent', version: '1', model_name: 'gpt-4o' },
        steps: [{ step_id: 1, source: 'user', message: 'go', timestamp: '2026-12-01T23:29:00Z' }, ...steps],
      }),
    );
    const out = path.join(tmp, 'out-atif');
    const r = await benchInProcess(['import', '--format', 'atif', dir, '-o', out, '--no-what-if']);
    expect(r.code, r.stderr).toBe(0);
    const rows = readCsv(path.join(out, 'spend_by_day.csv'));
    expect(rows.map((row) => [row.day, row.models, row.calls, row.input_tokens, row.output_tokens])).toEqual([
      ['2026-12-01', 'gpt-4o', '2', '300', '30'],
      ['2026-12-02', 'gpt-4o', '1', '300', '30'],
    ]);
    expect(rows.map((row) => Number(row.cost_usd))).toEqual([0.25 + 0.5, 1]);
    expect(readCsv(path.join(out, 'spend_by_model.csv')).map((row) => [row.model, row.calls])).toEqual([
      ['gpt-4o', '3'],
    ]);
  });
});

describe('results whose calls carry no time', () => {
  it('a sweep has no spend tables, and a report removes ones left by an earlier import into the directory', async () => {
    const out = path.join(tmp, 'sweep');
    const r = await benchInProcess(['run', '-s', 'paginated-search', '--repeat', '1', '-q', '-o', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(fs.existsSync(path.join(out, 'spend_by_day.csv'))).toBe(false);
    fs.writeFileSync(path.join(out, 'spend_by_day.csv'), 'stale\n');
    expect((await benchInProcess(['report', out])).code).toBe(0);
    expect(fs.existsSync(path.join(out, 'spend_by_day.csv'))).toBe(false);
    expect(fs.readFileSync(path.join(out, 'summary.md'), 'utf8')).not.toContain('Spend by day');
  });
});
