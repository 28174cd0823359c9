// `bench import` / `bench export`: ATIF trajectories in and out of results directories.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunRecord, StepRecord } from '../src/contracts/records.ts';
import { AtifTrajectory } from '../src/trajectories/atif-schema.ts';
import { fromAtif } from '../src/trajectories/from-atif.ts';
import { splitFingerprint } from '../src/trajectories/fingerprint-parse.ts';
import { fingerprint, stepActions } from '../src/contracts/fingerprint.ts';
import { benchInProcess, fixture } from './helpers/cli.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-atif-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const load = (rel: string) => AtifTrajectory.parse(JSON.parse(fs.readFileSync(fixture(`atif/${rel}`), 'utf8')));
const jsonl = <T>(file: string): T[] =>
  fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as T);
const gpt4oMini = { model: 'gpt-4o-mini', input_per_1m: 0.15, cached_input_per_1m: 0.075, output_per_1m: 0.6 };

describe('an ATIF trajectory as a run', () => {
  it('the specification example: one step per agent turn, its metrics as recorded, parallel tool calls as one action', () => {
    const { run, steps } = fromAtif(load('harbor-rfc-0001-example.json'), { repeat: 1 });
    expect(steps.map((s) => [s.input_tokens, s.output_tokens, s.cached_tokens, s.cost_usd])).toEqual([
      [520, 80, 200, 0.00045],
      [600, 44, 0, 0.00033],
    ]);
    // The totals agree with the trajectory's own final_metrics (1120 / 124 / 200 / $0.00078).
    expect([run.input_tokens, run.output_tokens, run.cached_tokens]).toEqual([1120, 124, 200]);
    expect(run.cost_usd).toBeCloseTo(0.00078, 12);
    expect(steps[0]!.action).toBe('financial_search|financial_search');
    expect(steps[0]!.fingerprint).toBe(
      'financial_search({"metric":"price","ticker":"GOOGL"})|financial_search({"metric":"volume","ticker":"GOOGL"})',
    );
    expect(steps.map((s) => s.latency_ms)).toEqual([2000, 3000]);
    expect(run.stop_reason).toBe('done');
    expect(run.answer).toMatch(/^As of October 11, 2025, Alphabet/);
    expect(run.success).toBeNull();
    expect(run.scenario).toBe('harbor-agent');
    // One call per agent step: replayed like a ReAct run by what-if limits; the agent's own name is kept.
    expect(run.agent).toBe('react');
    expect(run.extra?.imported).toMatchObject({ agent: 'harbor-agent', agent_version: '1.0.0', format: 'ATIF-v1.4' });
  });

  it('tokens without cost are priced from the table, by hand: (600·0.15 + 400·0.075 + 100·0.60) / 1e6', () => {
    const { run, steps, notes } = fromAtif(load('edges/tokens-no-cost.json'), { repeat: 1, price: gpt4oMini });
    expect(steps[0]!.cost_usd).toBeCloseTo(0.00018, 15);
    expect(steps[1]!.cost_usd).toBeCloseTo((1200 * 0.15 + 10 * 0.6) / 1e6, 15);
    expect(steps[1]!.cum_input_tokens).toBe(2200);
    expect(run.success).toBe(true);
    expect(notes.join(' ')).toMatch(/priced as gpt-4o-mini/);
  });

  it('a trajectory that ends after a tool call stops as imported; one without metrics says so', () => {
    expect(fromAtif(load('edges/stops-after-tool.json'), { repeat: 1 }).run.stop_reason).toBe('imported');
    const bare = fromAtif(load('edges/missing-metrics.json'), { repeat: 1 });
    expect(bare.steps).toHaveLength(1);
    expect(bare.run.cost_usd).toBe(0);
    expect(bare.notes.join(' ')).toMatch(/without metrics/);
  });

  it('subagents are referenced from the parent run, not summed into it', () => {
    const { run } = fromAtif(load('edges/subagent.json'), { repeat: 1 });
    expect(run.extra?.imported).toMatchObject({ subagents: ['edge-subagent-child'] });
    expect(run.input_tokens).toBe(650);
  });

  it('a side file decides success over the trajectory', () => {
    expect(fromAtif(load('edges/tokens-no-cost.json'), { repeat: 1, success: false }).run.success).toBe(false);
  });

  it('a trajectory loopbench exported (model imported:…) is named once: imported:gpt-4o-mini, not imported:imported:', () => {
    const t = load('harbor-rfc-0001-example.json');
    const again = fromAtif({ ...t, agent: { ...t.agent, model_name: 'imported:gpt-4o-mini' } }, { repeat: 1 });
    expect(again.run.settings.model).toBe('imported:gpt-4o-mini');
    expect(again.run.config_id).toBe('harbor-agent imported:gpt-4o-mini');
  });
});

describe('fingerprints back into actions', () => {
  it('splits actions whose arguments hold the separator, brackets and quotes', () => {
    const actions = [
      { tool: 'run_python', args: { code: 'print("a|b)(")\nx = [1, {"y": "]"}]' } },
      { tool: 'search', args: { q: 'x|y', page: 2 } },
    ];
    const step = stepActions(actions.map((a) => ({ tool: a.tool, fingerprint: fingerprint(a.tool, a.args) })));
    expect(step.action).toBe('run_python|search');
    expect(splitFingerprint(step.fingerprint!)).toEqual(actions);
  });

  it('a step of no actions has neither field; one action of unknown arguments leaves the whole call without a fingerprint', () => {
    expect(stepActions([])).toEqual({ action: null, fingerprint: null });
    const known = { tool: 'search', fingerprint: fingerprint('search', { q: 'x' }) };
    expect(stepActions([known, { tool: 'fetch', fingerprint: null }])).toEqual({
      action: 'search|fetch',
      fingerprint: null,
    });
  });

  it('keeps arguments that never parsed as their raw text', () => {
    expect(splitFingerprint('sort({"by": oops)|sort({"by":"date"})')).toEqual([
      { tool: 'sort', args: '{"by": oops' },
      { tool: 'sort', args: { by: 'date' } },
    ]);
  });
});

describe('bench import', () => {
  it('imports every valid file, skips each bad one with one line naming the file and field, and builds the reports', async () => {
    const out = path.join(tmp, 'fixtures');
    const r = await benchInProcess(['import', fixture('atif'), '-o', out, '--skip-bad']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/imported 5 run\(s\), 9 agent step\(s\); 3 file\(s\) skipped/);
    const skipped = r.stderr.split('\n').filter((l) => l.startsWith('bench: skipped'));
    expect(skipped).toHaveLength(3);
    expect(skipped.find((l) => l.includes('missing-session.json'))).toMatch(/session_id: missing/);
    expect(skipped.find((l) => l.includes('wrong-source.json'))).toMatch(/steps\[0\]\.source/);
    expect(skipped.find((l) => l.includes('not-json.json'))).toMatch(/not JSON/);
    for (const f of ['runs.jsonl', 'steps.jsonl', 'meta.json', 'summary.csv', 'fit.csv', 'report.html', 'summary.md'])
      expect(fs.existsSync(path.join(out, f)), f).toBe(true);
    const meta = JSON.parse(fs.readFileSync(path.join(out, 'meta.json'), 'utf8'));
    expect(meta.imported).toMatchObject({ format: 'atif', files: 8, skipped: 3 });
    // The model named with its provider (openai/gpt-4o-mini) was priced from the table; the others kept their cost_usd.
    const runs = jsonl<RunRecord>(path.join(out, 'runs.jsonl'));
    expect(runs.find((x) => x.run_id.endsWith('edge-tokens-no-cost'))!.cost_usd).toBeCloseTo(0.00018 + 0.000186, 15);
  });

  it('nothing valid to import is a usage error', async () => {
    const r = await benchInProcess(['import', fixture('atif/bad'), '-o', path.join(tmp, 'none')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/nothing imported: 3 file\(s\) or line\(s\) skipped/);
  });

  it('takes the pricing flags of bench run: custom rates price steps that have tokens but no cost, by hand', async () => {
    const out = path.join(tmp, 'custom-price');
    const r = await benchInProcess([
      'import',
      fixture('atif/edges/tokens-no-cost.json'),
      '-o',
      out,
      '--price-in',
      '1',
      '--price-out',
      '4',
    ]);
    expect(r.code, r.stderr).toBe(0);
    // (1000 + 1200) input at $1 (no cached rate given: the input rate) + (100 + 10) output at $4, per 1M.
    expect(jsonl<RunRecord>(path.join(out, 'runs.jsonl'))[0]!.cost_usd).toBeCloseTo((2200 * 1 + 110 * 4) / 1e6, 15);
    const half = await benchInProcess([
      'import',
      fixture('atif/edges/tokens-no-cost.json'),
      '-o',
      path.join(tmp, 'half'),
      '--price-in',
      '1',
    ]);
    expect(half.code).toBe(2);
    expect(half.stderr).toMatch(/--price-in and --price-out go together/);
  });

  it('--outcomes decides success per session', async () => {
    const outcomes = path.join(tmp, 'outcomes.json');
    fs.writeFileSync(outcomes, JSON.stringify({ '025B810F-B3A2-4C67-93C0-FE7A142A947A': true }));
    const out = path.join(tmp, 'outcomes');
    expect(
      (
        await benchInProcess([
          'import',
          fixture('atif/harbor-rfc-0001-example.json'),
          '-o',
          out,
          '--outcomes',
          outcomes,
        ])
      ).code,
    ).toBe(0);
    expect(jsonl<RunRecord>(path.join(out, 'runs.jsonl'))[0]!.success).toBe(true);
  });

  it('a quadratic history in real traces shows as a quadratic fit', async () => {
    // 12 trajectories of 3..14 steps; each step re-sends the history: prompt = 300 + 450·(k − 1) tokens.
    const dir = path.join(tmp, 'traffic');
    fs.mkdirSync(dir);
    for (let n = 3; n <= 14; n++) {
      const steps = [{ step_id: 1, source: 'user', message: 'goal' }];
      for (let k = 1; k <= n; k++)
        steps.push({
          step_id: k + 1,
          source: 'agent',
          message: '',
          ...(k < n
            ? { tool_calls: [{ tool_call_id: `c${k}`, function_name: 'search', arguments: { q: `page ${k}` } }] }
            : {}),
          metrics: { prompt_tokens: 300 + 450 * (k - 1), completion_tokens: 150 },
        } as never);
      fs.writeFileSync(
        path.join(dir, `run-${n}.json`),
        JSON.stringify({
          schema_version: 'ATIF-v1.6',
          session_id: `s${n}`,
          agent: { name: 'prod-agent', version: '2', model_name: 'gpt-4o-mini' },
          steps,
        }),
      );
    }
    const out = path.join(tmp, 'traffic-out');
    const r = await benchInProcess(['import', dir, '-o', out]);
    expect(r.code).toBe(0);
    // Σ_{k=1..N} (300 + 450(k−1)) = 225·N² + 75·N exactly.
    expect(r.stdout).toMatch(/prod-agent: cumulative input tokens after N steps fit 225·N² \+ 75·N \(R² = 1\.0000\)/);
    // On real traces the question is what a lower limit would have saved: derived from the records, no model call.
    const w = await benchInProcess(['report', out, '--what-if', 'steps=5,10']);
    expect(w.code, w.stderr).toBe(0);
    // No success recorded in these traces: the derived limits are compared, none recommended.
    expect(w.stdout.split('\n')[0]).toMatch(
      /^» prod-agent: MAX_STEPS 5 \(derived\) → 10 \(derived\): steps taken ×[0-9.]+ .* No MAX_STEPS is recommended/,
    );
    // Runs of 3..14 steps: at 5, the 3 runs of 3–5 steps still finish, the 9 longer ones are cut at step 5.
    const at5 = w.stdout.split('\n').find((l) => l.startsWith('prod-agent imported:gpt-4o-mini steps=5 (derived)'))!;
    expect(at5).toMatch(/ 12 +- +/);
    expect(at5).toContain('max_steps 9 @5');
    expect(at5).toContain('done 3 @3-5');
    const derived = fs.readFileSync(path.join(out, 'whatif_runs.csv'), 'utf8').trim().split('\n');
    expect(derived).toHaveLength(1 + 2 * 12);
    // The next report without --what-if leaves no derived runs behind from this one.
    expect((await benchInProcess(['report', out])).code).toBe(0);
    expect(fs.existsSync(path.join(out, 'whatif_runs.csv'))).toBe(false);
  });
});

describe('bench import --format chatlog', () => {
  const call = (run: string, prompt: number, tools: Array<[string, object]>, cached = 0) => ({
    metadata: { run_id: run },
    request: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'goal' }] },
    response: {
      model: 'gpt-4o-mini-2024-07-18',
      choices: [
        {
          message: {
            content: tools.length ? null : 'final answer',
            tool_calls: tools.map(([name, args], i) => ({
              id: `c${i}`,
              type: 'function',
              function: { name, arguments: JSON.stringify(args) },
            })),
          },
        },
      ],
      usage: { prompt_tokens: prompt, completion_tokens: 50, prompt_tokens_details: { cached_tokens: cached } },
    },
  });

  it('groups request/response pairs into runs by the named field, in line order, and skips bad lines one line each', async () => {
    const dir = path.join(tmp, 'chatlog');
    fs.mkdirSync(dir);
    const lines = [
      call('a', 100, [['search', { q: 'x' }]]),
      call('b', 200, [['search', { q: 'y' }]]),
      call(
        'a',
        300,
        [
          ['search', { q: 'x' }],
          ['open', { id: 1 }],
        ],
        100,
      ),
      'not json',
      { metadata: { run_id: 'a' }, request: {}, response: { choices: [] } },
      call('a', 500, []),
    ];
    fs.writeFileSync(
      path.join(dir, 'gateway.jsonl'),
      lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n'),
    );
    const out = path.join(tmp, 'chatlog-out');
    const r = await benchInProcess([
      'import',
      dir,
      '--format',
      'chatlog',
      '--group-by',
      'metadata.run_id',
      '--scenario',
      'support-bot',
      '-o',
      out,
    ]);
    // Lines skipped: the import writes what it read and says it is incomplete in its exit code.
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/skipped .*gateway\.jsonl:4: not JSON/);
    expect(r.stderr).toMatch(/skipped .*gateway\.jsonl:5: neither a request\/response pair nor a usage line/);
    const runs = jsonl<RunRecord>(path.join(out, 'runs.jsonl'));
    const a = runs.find((x) => x.run_id === 'support-bot_a')!;
    expect([a.steps, a.input_tokens, a.cached_tokens, a.stop_reason, a.answer]).toEqual([
      3,
      900,
      100,
      'done',
      'final answer',
    ]);
    expect(runs.find((x) => x.run_id === 'support-bot_b')!.stop_reason).toBe('imported');
    const steps = jsonl<StepRecord>(path.join(out, 'steps.jsonl')).filter((x) => x.run_id === 'support-bot_a');
    expect(steps.map((x) => x.fingerprint)).toEqual(['search({"q":"x"})', 'search({"q":"x"})|open({"id":1})', null]);
    // No cost in the log: priced as the model the request named (the pricing table knows it), by hand.
    expect(a.settings.model).toBe('imported:gpt-4o-mini');
    expect(a.cost_usd).toBeCloseTo(((100 + 200 + 500) * 0.15 + 100 * 0.075 + 150 * 0.6) / 1e6, 15);
  });

  it.each([
    [
      ['import', 'x', '-o', 'y', '--format', 'csv'],
      /--format: 'csv' is not supported \(accepted: atif, chatlog, messages, otlp, claude-code, codex\)/,
    ],
    [['import', 'x', '-o', 'y', '--group-by', 'run'], /--group-by: only for --format chatlog/],
    [['import', 'x', '-o', 'y', '--price-cached', '1'], /--price-cached: only used with --price-in and --price-out/],
    [['export', 'nowhere'], /nowhere: not a results directory \(no runs.jsonl\)/],
    [['export', '.', '--format', 'csv'], /--format: 'csv' is not supported \(accepted: atif, otlp\)/],
  ])('refuses %j in one line, exit 2', async (args, message) => {
    const r = await benchInProcess(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('--format chatlog without --group-by is a usage error', async () => {
    const r = await benchInProcess(['import', tmp, '--format', 'chatlog', '-o', path.join(tmp, 'x')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/needs --group-by FIELD/);
  });
});

describe('bench export, and back', () => {
  const sweep = path.join(tmp, 'sweep');
  const exported = path.join(tmp, 'exported');

  it('every run of a sweep becomes a valid ATIF trajectory with its messages, tool calls and metrics', async () => {
    expect(
      (
        await benchInProcess([
          '--scenario',
          'tiny-agent-sum-of-squares,seed-calibrated',
          '--steps',
          '4,8',
          '-n',
          '2',
          '--out',
          sweep,
          '-q',
        ])
      ).code,
    ).toBe(0);
    const r = await benchInProcess(['export', sweep, '-o', exported]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/exported 8 run\(s\).*\(8 with their messages/);
    const files = fs.readdirSync(exported);
    expect(files).toHaveLength(8);
    const t = AtifTrajectory.parse(
      JSON.parse(
        fs.readFileSync(
          path.join(
            exported,
            files.find((f) => f.startsWith('tiny-agent'))!,
          ),
          'utf8',
        ),
      ),
    );
    expect(t.steps[0]!.source).toBe('system');
    expect(t.steps[1]!.source).toBe('user');
    const act = t.steps.find((s) => s.tool_calls?.length)!;
    expect(act.tool_calls![0]!.function_name).toBe('run_python');
    expect(act.observation!.results[0]!.content).toMatch(/338350/);
  });

  it('an export imported again gives the same records and the same reports', async () => {
    const back = path.join(tmp, 'back');
    const imported = await benchInProcess(['import', exported, '-o', back]);
    expect(imported.code, imported.stderr).toBe(0);
    const sortLines = (f: string) => fs.readFileSync(f, 'utf8').trim().split('\n').sort();
    for (const f of ['runs.jsonl', 'steps.jsonl'])
      expect(sortLines(path.join(back, f))).toEqual(sortLines(path.join(sweep, f)));
    for (const f of [
      'summary.csv',
      'fit.csv',
      'step_ratios.csv',
      'step_limit_savings.csv',
      'steps_by_index.csv',
      'repricing.csv',
    ])
      expect(fs.readFileSync(path.join(back, f), 'utf8'), f).toBe(fs.readFileSync(path.join(sweep, f), 'utf8'));
  });

  it('from the standard ATIF fields alone (another tool wrote it), tokens, costs and actions survive', async () => {
    const plain = path.join(tmp, 'plain');
    fs.mkdirSync(plain);
    for (const f of fs.readdirSync(exported)) {
      const t = JSON.parse(fs.readFileSync(path.join(exported, f), 'utf8'));
      delete t.extra.loopbench;
      for (const s of t.steps) delete s.extra;
      fs.writeFileSync(path.join(plain, f), JSON.stringify(t));
    }
    const back = path.join(tmp, 'plain-back');
    expect((await benchInProcess(['import', plain, '-o', back])).code).toBe(0);
    const key = (s: StepRecord) => [s.input_tokens, s.output_tokens, s.cached_tokens, s.cost_usd, s.fingerprint];
    const bySession = (dir: string, idOf: (s: StepRecord) => string) => {
      const m = new Map<string, unknown[]>();
      for (const s of jsonl<StepRecord>(path.join(dir, 'steps.jsonl')))
        m.set(idOf(s), [...(m.get(idOf(s)) ?? []), key(s)]);
      return m;
    };
    const original = bySession(sweep, (s) => s.run_id);
    const imported = bySession(back, (s) => s.run_id.slice(s.run_id.indexOf('_') + 1));
    expect(imported).toEqual(original);
  });
});
