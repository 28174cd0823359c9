// `bench import --format messages`: a benchmark's or an app's conversations (final message lists with
// an outcome) as runs, and the cost-review questions asked of them: the cost curve, cost per success,
// and what a lower step limit would have saved.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage, ToolSpec } from '../src/contracts/chat.ts';
import type { RunRecord, StepRecord } from '../src/contracts/records.ts';
import { completionTokens, TokenCounter } from '../src/meter/tokens.ts';
import { loadPricing, priceFor } from '../src/meter/pricing.ts';
import { benchInProcess, ROOT } from './helpers/cli.ts';
import { patient } from './helpers/patient.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-messages-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const jsonl = <T>(file: string): T[] =>
  fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as T);
/** summary.csv as rows keyed by config_id. */
function summaryOf(dir: string): Map<string, Record<string, string>> {
  const [head, ...rows] = fs
    .readFileSync(path.join(dir, 'summary.csv'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.split(','));
  return new Map(rows.map((r) => [r[0]!, Object.fromEntries(head!.map((h, i) => [h, r[i]!]))]));
}

const FLAGS = [
  '--format',
  'messages',
  '--id-field',
  'conversation_id',
  '--tools-field',
  'tools',
  '--success-field',
  'reward',
  '--success-min',
  '1',
  '--model',
  'gpt-4o-mini',
  '--scenario',
  'support-agent',
];

describe('a few hundred support conversations (scripts/make-messages-fixture.mjs)', () => {
  const file = path.join(tmp, 'conversations.jsonl');
  const out = path.join(tmp, 'support');
  let imported: Awaited<ReturnType<typeof benchInProcess>>;

  beforeAll(async () => {
    const made = spawnSync(
      process.execPath,
      [path.join(ROOT, 'scripts', 'make-messages-fixture.mjs'), '-n', '300', '-o', file],
      { encoding: 'utf8' },
    );
    expect(made.status, made.stderr).toBe(0);
    imported = await benchInProcess(['import', file, ...FLAGS, '-o', out]);
  }, patient(60_000));

  it('the fixture is realistic: 300 conversations of 6 to 50 messages, tool calls and results, both outcomes', () => {
    const records = jsonl<{ messages: Array<{ role: string; tool_calls?: unknown[] }>; reward: number }>(file);
    expect(records).toHaveLength(300);
    const lengths = records.map((r) => r.messages.length);
    expect(Math.min(...lengths)).toBeGreaterThanOrEqual(6);
    expect(Math.max(...lengths)).toBeLessThanOrEqual(50);
    expect(Math.max(...lengths) - Math.min(...lengths)).toBeGreaterThan(35);
    expect(
      records.every((r) => r.messages.some((m) => m.tool_calls?.length) && r.messages.some((m) => m.role === 'tool')),
    ).toBe(true);
    expect(new Set(records.map((r) => r.reward))).toEqual(new Set([0, 1]));
  });

  it('imports every conversation as a run, one step per assistant message, and its report shows the cost curve and cost per success', () => {
    expect(imported.code, imported.stderr).toBe(0);
    const records = jsonl<{ messages: Array<{ role: string }>; reward: number }>(file);
    const assistant = records.reduce((n, r) => n + r.messages.filter((m) => m.role === 'assistant').length, 0);
    expect(imported.stdout).toContain(`imported 300 run(s), ${assistant} agent step(s)`);
    const runs = jsonl<RunRecord>(path.join(out, 'runs.jsonl'));
    expect(runs.filter((r) => r.success).length).toBe(records.filter((r) => r.reward >= 1).length);
    // The quadratic cost curve, and cost per success in the summary.
    expect(imported.stdout).toMatch(
      /support-agent: cumulative input tokens after N steps fit [\d,]+·N² \+ [\d,]+·N \(R² = 0\.9\d+\)/,
    );
    expect(imported.stdout).toMatch(/cost\/success \(95% CI\)/);
    for (const f of [
      'report.html',
      'summary.csv',
      'fit.csv',
      'charts/cumulative-cost.svg',
      'charts/cumulative-input-tokens.svg',
    ])
      expect(fs.existsSync(path.join(out, f)), f).toBe(true);
    // What a message list cannot say, said once.
    expect(imported.stderr).toMatch(
      /note: tokens are counted with loopbench's o200k_base counter .* provider-side tokens \(cached prefixes, reasoning, retries the app did not log\) are not in these figures/,
    );
    expect(imported.stderr).toMatch(/note: message lists hold no times/);
    // Where the costs come from: loopbench counted every token, so they are not "as recorded".
    expect(imported.stdout).toContain(
      "Costs counted by loopbench: the message lists hold no usage, so every call's tokens were counted with loopbench's o200k_base counter and priced as gpt-4o-mini (",
    );
    expect(imported.stdout).not.toContain('as recorded in the trajectories');
  });

  it('without --what-if the import still answers the limit question: step and cost limits at the observed quantiles, a recommended MAX_STEPS and its rule', () => {
    expect(imported.stderr).toMatch(
      /note: what-if at the runs' observed p50\/p75\/p90: steps=\d+,\d+,\d+ cost=[\d.]+,[\d.]+,[\d.]+ \(choose others with --what-if, none with --no-what-if\)/,
    );
    expect(imported.stdout).toMatch(
      /» support-agent: recommended MAX_STEPS \d+ \(derived from recorded runs: a what-if\) — .* Rule: /,
    );
  });

  it('--no-what-if leaves the limits out (no derived runs, no recommendation)', async () => {
    const r = await benchInProcess(['import', file, ...FLAGS, '-o', path.join(tmp, 'no-whatif'), '--no-what-if']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/recommended MAX_STEPS|\(derived\)/);
    expect(r.stderr).not.toMatch(/what-if at the runs' observed/);
  });

  it('repeated ids are trials (records that differ are kept, numbered, said once); a byte-identical record is a duplicate; a BOM file imports', async () => {
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
    const trials = path.join(tmp, 'trials.jsonl');
    // Three records under one id (three trials of one task), and the first given again byte for byte.
    const same = (l: string) => JSON.stringify({ ...JSON.parse(l), conversation_id: 'task-7' });
    fs.writeFileSync(
      trials,
      `\uFEFF${[same(lines[0]!), same(lines[1]!), same(lines[2]!), same(lines[0]!)].join('\r\n')}\r\n`,
    );
    const r = await benchInProcess(['import', trials, ...FLAGS, '-o', path.join(tmp, 'trials'), '--no-report']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/imported 3 run\(s\)/);
    expect(jsonl<RunRecord>(path.join(tmp, 'trials', 'runs.jsonl')).map((x) => x.run_id)).toEqual([
      'support-agent_task-7',
      'support-agent_task-7.trial2',
      'support-agent_task-7.trial3',
    ]);
    expect(r.stderr.split('\n').filter((l) => l.includes('trial'))).toEqual([
      expect.stringMatching(
        /note: 2 run\(s\) share an id with an earlier one but differ from it: each is kept as another trial/,
      ),
    ]);
    expect(r.stderr).toMatch(/note: 1 record\(s\) identical to one already imported: dropped as duplicates/);
    expect(r.stderr).not.toMatch(/skipped/);
  });

  it("a what-if table over step limits, with a recommended MAX_STEPS, in the import's own report; a timeout what-if is refused (no times)", async () => {
    const r = await benchInProcess([
      'import',
      file,
      ...FLAGS,
      '-o',
      out,
      '--force',
      '--what-if',
      'steps=5..20:5',
      '--what-if',
      'timeout=60',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(/^imported 300 run\(s\)/);
    expect(r.stdout).toMatch(/\n» support-agent: recommended MAX_STEPS \d+ \(derived from recorded runs: a what-if\)/);
    for (const n of [5, 10, 15, 20])
      expect(r.stdout).toMatch(new RegExp(`support-agent imported:gpt-4o-mini steps=${n} \\(derived\\) +300 `));
    expect(r.stdout).toMatch(
      /what-if timeout=60 from support-agent imported:gpt-4o-mini refused: .*hold no times \(a message list\)/,
    );
    expect(fs.readFileSync(path.join(out, 'whatif_runs.csv'), 'utf8').trim().split('\n')).toHaveLength(1 + 4 * 300);

    // The prompt-caching estimate of every configuration, derived ones included, computed here from the steps
    // alone: a call's cached prefix is the previous call's prompt, billed from 1,024 tokens in 128-token steps.
    const byRun = new Map<string, StepRecord[]>();
    for (const s of jsonl<StepRecord>(path.join(out, 'steps.jsonl')))
      byRun.set(s.run_id, [...(byRun.get(s.run_id) ?? []), s]);
    const p = priceFor(loadPricing(), 'gpt-4o-mini');
    const withCaching = (limit: number) => {
      let total = 0;
      for (const steps of byRun.values()) {
        steps.slice(0, limit).forEach((s, i) => {
          const prev = i === 0 ? 0 : steps[i - 1]!.input_tokens;
          const cached = Math.min(s.input_tokens, prev < 1024 ? 0 : 1024 + 128 * Math.floor((prev - 1024) / 128));
          total +=
            ((s.input_tokens - cached) * p.input_per_1m +
              cached * p.cached_input_per_1m +
              s.output_tokens * p.output_per_1m) /
            1e6;
        });
      }
      return total / byRun.size;
    };
    const repriced = new Map(
      fs
        .readFileSync(path.join(out, 'repricing.csv'), 'utf8')
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => l.split(','))
        .filter((c) => c[3] === 'on_estimated')
        .map((c) => [c[0], Number(c[4])]),
    );
    expect(repriced.get('support-agent imported:gpt-4o-mini')).toBeCloseTo(withCaching(Infinity), 12);
    for (const n of [5, 10, 15, 20]) {
      const estimate = repriced.get(`support-agent imported:gpt-4o-mini steps=${n} (derived)`);
      expect(estimate, `steps=${n}`).toBeCloseTo(withCaching(n), 12);
    }
    // Caching saves something at every limit, not only on the recorded runs.
    expect(withCaching(5)).toBeLessThan(
      Number(summaryOf(out).get('support-agent imported:gpt-4o-mini steps=5 (derived)')!.cost_usd_mean),
    );
  });
});

describe('a conversation counted as the provider would have billed it', () => {
  const tools: ToolSpec[] = [
    {
      type: 'function',
      function: {
        name: 'lookup',
        description: 'Find an order.',
        parameters: { type: 'object', properties: { id: { type: 'string', description: 'order id' } } },
      },
    },
  ];
  const messages: ChatMessage[] = [
    { role: 'system', content: 'You help with orders.' },
    { role: 'user', content: 'Where is order 42?' },
    {
      role: 'assistant',
      content: 'Let me look.',
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"id":"42"}' } }],
    },
    { role: 'tool', tool_call_id: 'c1', content: '{"status":"shipped","eta":"Friday"}' },
    { role: 'assistant', content: 'It has shipped and arrives on Friday.' },
  ];

  it("each assistant message is a call whose input is every message before it and the tools, counted like bench's own requests", async () => {
    const file = path.join(tmp, 'one.json');
    // A JSON array of records, the message list under `traj`, content as a list of parts in one message.
    const record = {
      id: 'order-42',
      traj: messages.map((m) => (m.role === 'user' ? { ...m, content: [{ type: 'text', text: m.content }] } : m)),
      tools,
      solved: true,
    };
    fs.writeFileSync(file, JSON.stringify([record]));
    const out = path.join(tmp, 'one');
    const r = await benchInProcess([
      'import',
      file,
      '--format',
      'messages',
      '--messages-field',
      'traj',
      '--tools-field',
      'tools',
      '--success-field',
      'solved',
      '--model',
      'gpt-4o',
      '-o',
      out,
      '--no-report',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const steps = jsonl<StepRecord>(path.join(out, 'steps.jsonl'));
    const counter = new TokenCounter();
    expect(steps.map((s) => s.input_tokens)).toEqual([
      counter.prompt(messages.slice(0, 2), tools),
      counter.prompt(messages.slice(0, 4), tools),
    ]);
    expect(steps.map((s) => s.output_tokens)).toEqual([
      completionTokens(messages[2] as never),
      completionTokens(messages[4] as never),
    ]);
    expect(steps.map((s) => s.fingerprint)).toEqual(['lookup({"id":"42"})', null]);
    const [run] = jsonl<RunRecord>(path.join(out, 'runs.jsonl'));
    expect([run!.run_id, run!.stop_reason, run!.success, run!.answer, run!.settings.model]).toEqual([
      'messages_order-42',
      'done',
      true,
      'It has shipped and arrives on Friday.',
      'imported:gpt-4o',
    ]);
    // Priced as gpt-4o from the table, by hand: $2.50 in, $10 out per 1M.
    expect(run!.cost_usd).toBeCloseTo((run!.input_tokens * 2.5 + run!.output_tokens * 10) / 1e6, 15);
  });

  it('bad records are one line each naming the record and the field; the rest imports', async () => {
    const file = path.join(tmp, 'mixed.jsonl');
    const good = (id: string) => JSON.stringify({ id, messages, reward: 1 });
    fs.writeFileSync(
      file,
      [
        good('a'),
        '{not json',
        JSON.stringify({ id: 'b' }),
        JSON.stringify({ id: 'c', messages: [{ role: 'wizard', content: 'x' }] }),
        JSON.stringify({ id: 'd', messages: [{ role: 'user', content: 'hi' }] }),
        good('e'),
        '[1]',
      ].join('\n'),
    );
    const r = await benchInProcess([
      'import',
      file,
      '--format',
      'messages',
      '--success-field',
      'reward',
      '--model',
      'gpt-4o-mini',
      '-o',
      path.join(tmp, 'mixed'),
      '--no-report',
    ]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/the import is incomplete: 5 part\(s\) of the input were skipped/);
    expect(r.stdout).toMatch(/imported 2 run\(s\), 4 agent step\(s\); 5 record\(s\) or file\(s\) skipped/);
    const skipped = r.stderr.split('\n').filter((l) => l.startsWith('bench: skipped'));
    expect(skipped).toEqual([
      `bench: skipped ${file}:2: not JSON`,
      `bench: skipped ${file}:3 (id "b"): messages: missing (expected a list of messages)`,
      expect.stringMatching(
        new RegExp(`^bench: skipped ${file}:4 \\(id "c"\\): messages\\[0\\]\\.role: Invalid option`),
      ),
      `bench: skipped ${file}:5 (id "d"): messages: no assistant message, so no model call`,
      `bench: skipped ${file}:7: not a JSON object`,
    ]);
    // A numeric outcome without --success-min is not guessed at.
    expect(r.stderr).toMatch(/note: 'reward' holds numbers: give --success-min N/);
    expect(jsonl<RunRecord>(path.join(tmp, 'mixed', 'runs.jsonl')).map((x) => x.success)).toEqual([null, null]);
  });

  it.each([
    [['--format', 'messages'], /--format messages needs --model NAME/],
    [['--format', 'messages', '--model', 'no-such-model'], /--model no-such-model: not in the pricing table/],
    [['--format', 'messages', '--model', 'gpt-4o', '--success-min', '1'], /--success-min: only with --success-field/],
    [['--model', 'gpt-4o'], /--model: only for --format messages/],
  ])('refuses %j in one line, exit 2', async (args, message) => {
    const r = await benchInProcess(['import', tmp, '-o', path.join(tmp, 'refused'), ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
