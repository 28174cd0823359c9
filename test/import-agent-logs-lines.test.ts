// The coding-agent log importers line by line, without the CLIs: Claude Code's per-block lines counted
// once (and once across files: a resumed session's log repeats them), a sub-agent's sidechain as its own
// linked run, Codex's older token_count-only logs, and hostile files (a BOM, a line cut short, bad UTF-8,
// a line longer than the cap) each one line, the rest imported.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunRecord, StepRecord } from '../src/contracts/records.ts';
import { CountedIds } from '../src/trajectories/agent-logs/counted-ids.ts';
import { importAgentLogs } from '../src/trajectories/agent-logs/import-logs.ts';
import { trajectoryFiles } from '../src/trajectories/import-dir.ts';
import { pricing } from '../src/cli/import.ts';
import { dataPath } from '../src/contracts/paths.ts';
import { benchInProcess } from './helpers/cli.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-agent-log-lines-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const jsonl = <T>(file: string): T[] =>
  fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as T);
const lines = (vs: object[]) => vs.map((v) => JSON.stringify(v)).join('\n') + '\n';
const price = pricing({ pricing: dataPath('litellm-prices.json') });

const SESSION = '11111111-2222-3333-4444-555555555555';
const usage = (input: number, read: number, w5: number, w1: number, output: number) => ({
  input_tokens: input,
  cache_read_input_tokens: read,
  cache_creation_input_tokens: w5 + w1,
  cache_creation: { ephemeral_5m_input_tokens: w5, ephemeral_1h_input_tokens: w1 },
  output_tokens: output,
});

/** Claude Code's lines for one answer: one per content block, the usage repeated on each. */
function answer(id: string, blocks: object[], u: object, extra: object = {}): object[] {
  return blocks.map((b, i) => ({
    type: 'assistant',
    sessionId: SESSION,
    uuid: `${id}-${i}`,
    timestamp: `2026-12-01T10:00:0${i}.000Z`,
    version: '2.1.197',
    isSidechain: false,
    message: { id, model: 'claude-sonnet-4-5-20250929', role: 'assistant', content: [b], usage: u },
    ...extra,
  }));
}
const bash = (command: string, description: string) => ({
  type: 'tool_use',
  id: `toolu_${description}`,
  name: 'Bash',
  input: { command, description },
});
const user = (extra: object = {}) => ({
  type: 'user',
  sessionId: SESSION,
  uuid: 'u',
  timestamp: '2026-12-01T10:00:00.000Z',
  message: { role: 'user', content: 'go' },
  ...extra,
});

function run(dir: string, format: 'claude-code' | 'codex', stream?: { maxMemberBytes: number }) {
  const out = path.join(tmp, `out-${path.basename(dir)}`);
  const done = importAgentLogs(format, trajectoryFiles([dir], '.jsonl'), out, {
    price,
    command: [],
    ...(stream ? { stream } : {}),
  });
  const runs = done.runs ? jsonl<RunRecord>(path.join(out, 'runs.jsonl')) : [];
  const steps = done.steps ? jsonl<StepRecord>(path.join(out, 'steps.jsonl')) : [];
  return { done, runs, steps };
}

describe('Claude Code logs, line by line', () => {
  const dir = path.join(tmp, 'claude');
  fs.mkdirSync(path.join(dir, SESSION, 'subagents'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, `${SESSION}.jsonl`),
    lines([
      { type: 'queue-operation', operation: 'enqueue', sessionId: SESSION, timestamp: '2026-12-01T10:00:00.000Z' },
      user(),
      ...answer(
        'msg_a',
        [
          { type: 'thinking', thinking: 'x', signature: 's' },
          { type: 'text', text: 'Running it.' },
          bash('ls', 'List files'),
        ],
        usage(10, 0, 100, 20, 30),
      ),
      user({
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_List files', content: 'a' }] },
      }),
      ...answer('msg_b', [{ type: 'text', text: 'Done.' }], usage(5, 130, 7, 0, 9)),
    ]),
  );
  // The sub-agent's own file, its lines marked as a sidechain of the session.
  fs.writeFileSync(
    path.join(dir, SESSION, 'subagents', 'agent-a1.jsonl'),
    lines(
      answer('msg_c', [{ type: 'text', text: 'Sub-agent done.' }], usage(3, 0, 0, 0, 4), {
        isSidechain: true,
        agentId: 'a1',
      }),
    ),
  );

  it('one step per message id, its usage once (not once per block line), a sub-agent its own run linked to its parent', () => {
    const { runs, steps } = run(dir, 'claude-code');
    expect(runs.map((r) => [r.run_id, r.calls, r.input_tokens, r.cached_tokens, r.output_tokens]).sort()).toEqual([
      [`claude-code_${SESSION}`, 2, 10 + 100 + 20 + 5 + 130 + 7, 130, 39],
      [`claude-code_${SESSION}-agent-a1`, 1, 3, 0, 4],
    ]);
    const first = steps.find((s) => s.run_id === `claude-code_${SESSION}`)!;
    expect(first).toMatchObject({ cache_write_tokens: 120, action: 'Bash', fingerprint: 'Bash({"command":"ls"})' });
    // claude-sonnet-4-5 (the dated name resolves): $3 input, $0.3 read, $3.75 5-minute write, 2× input for 1 hour, $15 output.
    expect(first.cost_usd).toBeCloseTo((10 * 3 + 100 * 3.75 + 20 * 6 + 30 * 15) / 1e6, 12);
    const [main, sub] = [runs.find((r) => !r.run_id.includes('agent'))!, runs.find((r) => r.run_id.includes('agent'))!];
    expect(main).toMatchObject({
      stop_reason: 'done',
      answer: 'Done.',
      settings: { model: 'imported:claude-sonnet-4-5-20250929' },
    });
    expect(sub.extra!.imported).toMatchObject({ parent_session: SESSION, parent_run: `claude-code_${SESSION}` });
  });

  it('a hostile file — a BOM, a line cut short, bad UTF-8, a line over the cap — is one line, and its good lines import', () => {
    const bad = path.join(tmp, 'claude-bad');
    fs.mkdirSync(bad);
    const good = lines([user(), ...answer('msg_h', [{ type: 'text', text: 'ok' }], usage(1, 0, 0, 0, 2))]);
    const parts = [
      Buffer.from('\ufeff'),
      Buffer.from(good),
      Buffer.from('{"type":"assistant","sessionId":"x","mess\n'),
      Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]),
      Buffer.from(`{"pad":"${'x'.repeat(3 * 1024 * 1024)}"}\n`),
      Buffer.from(lines(answer('msg_i', [{ type: 'text', text: 'after' }], usage(1, 0, 0, 0, 2)))),
    ];
    fs.writeFileSync(path.join(bad, 'hostile.jsonl'), Buffer.concat(parts));
    fs.writeFileSync(path.join(bad, 'notes.jsonl'), lines([{ hello: 'world' }]));
    fs.writeFileSync(path.join(bad, 'only-long.jsonl'), `{"pad":"${'x'.repeat(2 * 1024 * 1024)}"}\n`);
    const { done, runs } = run(bad, 'claude-code', { maxMemberBytes: 1024 * 1024 });
    expect(runs).toHaveLength(1);
    expect(runs[0]!.calls).toBe(2);
    expect(done.skipped).toHaveLength(3);
    const hostile = done.skipped.find((l) => l.includes('hostile.jsonl'))!;
    expect(hostile).toMatch(
      /3 line\(s\) skipped — 1 not JSON \(cut short or partly written\) \(first: line 3\); 1 not valid UTF-8 \(first: line 4\); 1 longer than 1 MiB \(first: line 5\)/,
    );
    expect(done.skipped.find((l) => l.includes('notes.jsonl'))).toMatch(
      /not a Claude Code session log \(none of its 1 line\(s\) is one\): skipped/,
    );
    // Its one line unreadable: said so, not "no lines".
    expect(done.skipped.find((l) => l.includes('only-long.jsonl'))).toMatch(
      /not a Claude Code session log \(no line it could read; 1 longer than 1 MiB \(first: line 1\)\): skipped$/,
    );
  });
});

describe('calls already counted, across files', () => {
  it("a resumed session's log repeats the calls it copied: each is counted once, the new ones added", () => {
    const dir = path.join(tmp, 'claude-resumed');
    fs.mkdirSync(dir);
    const first = [user(), ...answer('msg_r1', [{ type: 'text', text: 'one' }], usage(1, 0, 0, 0, 2))];
    fs.writeFileSync(path.join(dir, 'a.jsonl'), lines(first));
    const resumed = { sessionId: '99999999-2222-3333-4444-555555555555' };
    fs.writeFileSync(
      path.join(dir, 'b.jsonl'),
      lines(
        [...first, ...answer('msg_r2', [{ type: 'text', text: 'two' }], usage(3, 0, 0, 0, 4))].map((l) => ({
          ...l,
          ...resumed,
        })),
      ),
    );
    const { runs } = run(dir, 'claude-code');
    expect(runs.map((r) => [r.run_id, r.calls, r.input_tokens, r.output_tokens])).toEqual([
      [`claude-code_${SESSION}`, 1, 1, 2],
      ['claude-code_99999999-2222-3333-4444-555555555555', 1, 3, 4],
    ]);
  });

  it('holds every id added and no other, through its growth', () => {
    const ids = new CountedIds();
    for (let k = 0; k < 100_000; k++) ids.add(`msg_${k}`);
    ids.add('msg_0');
    let held = 0;
    let others = 0;
    for (let k = 0; k < 100_000; k++) {
      if (ids.has(`msg_${k}`)) held++;
      if (ids.has(`msg_${k + 100_000}`) || ids.has(`msg_${k}x`)) others++;
    }
    expect([held, others]).toEqual([100_000, 0]);
  });
});

describe('Codex logs without token_usage_record (older versions)', () => {
  it('each token_count with a new running total is one call; a repeated one is not', () => {
    const dir = path.join(tmp, 'codex-old');
    fs.mkdirSync(dir);
    const at = '2026-12-01T10:00:00.000Z';
    const count = (last: object, total: number) => ({
      timestamp: at,
      type: 'event_msg',
      payload: { type: 'token_count', info: { total_token_usage: { total_tokens: total }, last_token_usage: last } },
    });
    const call = {
      timestamp: at,
      type: 'response_item',
      payload: {
        type: 'function_call',
        name: 'shell',
        arguments: JSON.stringify({ command: ['bash', '-lc', 'ls'], workdir: '/x', timeout_ms: 1000 }),
        call_id: 'c1',
      },
    };
    fs.writeFileSync(
      path.join(dir, 'rollout-2026-12-01T10-00-00-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee.jsonl'),
      lines([
        {
          timestamp: at,
          type: 'session_meta',
          payload: { id: 'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee', cli_version: '0.40.0' },
        },
        { timestamp: at, type: 'turn_context', payload: { model: 'gpt-4o' } },
        call,
        count({ input_tokens: 100, cached_input_tokens: 40, output_tokens: 20, reasoning_output_tokens: 5 }, 120),
        count({ input_tokens: 100, cached_input_tokens: 40, output_tokens: 20, reasoning_output_tokens: 5 }, 120),
        {
          timestamp: at,
          type: 'response_item',
          payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done.' }] },
        },
        count({ input_tokens: 150, cached_input_tokens: 100, output_tokens: 10, reasoning_output_tokens: 0 }, 280),
      ]),
    );
    const { runs, steps } = run(dir, 'codex');
    expect(
      runs.map((r) => [r.run_id, r.calls, r.input_tokens, r.cached_tokens, r.output_tokens, r.stop_reason, r.answer]),
    ).toEqual([['codex_aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee', 2, 250, 140, 30, 'done', 'Done.']]);
    expect(steps.map((s) => s.reasoning_tokens ?? 0)).toEqual([5, 0]);
    // The shell tool's command alone is the fingerprint: its working directory and timeout are not the action.
    expect(steps[0]!.fingerprint).toBe('shell({"command":["bash","-lc","ls"]})');
    expect(steps[0]!.cost_usd).toBeCloseTo((60 * 2.5 + 40 * 1.25 + 20 * 10) / 1e6, 12);
  });

  it('bench import finds the format by content, and says so in --help', async () => {
    const r = await benchInProcess([
      'import',
      path.join(tmp, 'codex-old'),
      '-o',
      path.join(tmp, 'out-detected'),
      '--no-report',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^imported 1 run\(s\), 2 agent step\(s\); records in /);
    const help = await benchInProcess(['import', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      'Default: claude-code or codex when the first .jsonl file found is one of their logs, else atif',
    );
  });
});
