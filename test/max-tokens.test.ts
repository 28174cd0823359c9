// max_tokens as a provider honours it: the simulated model stops there (in process and behind
// `bench serve`), a cut tool call has invalid arguments, and a model that ignores it is recorded,
// reported and kept from passing the spend cap. Worst case: thoughts far longer than max_tokens.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AssistantMessage } from '../src/contracts/chat.ts';
import type { RunRecord, StepRecord } from '../src/contracts/records.ts';
import { completionTokens, countText } from '../src/meter/tokens.ts';
import { capOutput } from '../src/sim/max-tokens.ts';
import { gridOf, runPlans, specOf } from './helpers.ts';
import { bench, fixture } from './helpers/cli.ts';
import { benchAsync, FAKE_KEY, serve } from './serve-helpers.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-max-tokens-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const LONG_THOUGHTS = fixture('profiles/long-thoughts.yaml');
const LONG_ARGS = fixture('profiles/long-args.yaml');
const jsonl = <T>(file: string): T[] =>
  fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as T);
const sentence = (n: number) => Array.from({ length: n }, () => 'token').join(' ');

describe('capOutput: where a provider cuts an answer', () => {
  const call = {
    id: 'c1',
    type: 'function' as const,
    function: { name: 'search', arguments: JSON.stringify({ query: sentence(50) }) },
  };

  it('cuts a long text to exactly max_tokens and drops the tool call that never started', () => {
    const m: AssistantMessage = { role: 'assistant', content: `Thought 1: ${sentence(200)}`, tool_calls: [call] };
    const { message, finishReason } = capOutput(m, completionTokens(m), 20);
    expect(finishReason).toBe('length');
    expect(message.tool_calls).toBeUndefined();
    expect(countText(message.content!)).toBe(20);
    expect(m.content!.startsWith(message.content!)).toBe(true);
  });

  it('cuts inside a tool call: the call stays, its arguments are truncated and not valid JSON', () => {
    const m: AssistantMessage = { role: 'assistant', content: 'Thought 1: short.', tool_calls: [call] };
    const max = countText(m.content!) + 3 + countText('search') + 10;
    const { message, finishReason } = capOutput(m, completionTokens(m), max);
    expect(finishReason).toBe('length');
    const args = message.tool_calls![0]!.function.arguments;
    expect(countText(args)).toBe(10);
    expect(call.function.arguments.startsWith(args)).toBe(true);
    expect(() => JSON.parse(args)).toThrow();
    expect(completionTokens(message)).toBe(max);
  });

  it('leaves an answer within max_tokens untouched', () => {
    const m: AssistantMessage = { role: 'assistant', content: 'Thought 1: short.', tool_calls: [call] };
    const r = capOutput(m, completionTokens(m), completionTokens(m));
    expect(r.message).toBe(m);
    expect(r.finishReason).toBe('tool_calls');
  });
});

describe('the simulated model in process honours max_tokens', () => {
  it('a thought 3,000 times longer than max_tokens bills exactly max_tokens, and the run says the answer was cut', async () => {
    const [r] = await runPlans(
      specOf(['seed-calibrated'], gridOf({}, { model: [`sim:${LONG_THOUGHTS}`] }), {
        settings: { max_output_tokens: 20 },
      }),
    );
    expect(r!.steps.map((s) => s.output_tokens)).toEqual([20]);
    expect(r!.record.stop_reason).toBe('done');
    expect(r!.record.stop_detail).toBe('final answer at step 1 (cut at max_tokens 20: finish_reason length)');
    expect(r!.calls[0]!.finish_reason).toBe('length');
  });

  it('a tool call cut by max_tokens reaches the agent as invalid arguments, and the loop goes on', async () => {
    const [r] = await runPlans(
      specOf(['seed-calibrated'], gridOf({ max_steps: 3 }, { model: [`sim:${LONG_ARGS}`] }), {
        settings: { max_output_tokens: 40 },
      }),
    );
    expect(r!.steps.map((s) => s.output_tokens)).toEqual([40, 40, 40]);
    expect(r!.record.stop_reason).toBe('max_steps');
    const observations = r!.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    expect(observations).toHaveLength(3);
    for (const o of observations) expect(o).toMatch(/^Error: search: arguments are not valid JSON/);
  });
});

describe('worst case on the real CLI: a long-thought profile against --max-cost and --ci-max-spend', () => {
  it('--max-output-tokens 20: no call returns more than 20 output tokens', async () => {
    const out = path.join(tmp, 'twenty');
    const r = await bench([
      '--scenario',
      'seed-calibrated',
      '--model',
      `sim:${LONG_THOUGHTS}`,
      '--max-output-tokens',
      '20',
      '-n',
      '3',
      '-q',
      '--out',
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const steps = jsonl<StepRecord>(path.join(out, 'steps.jsonl'));
    expect(steps.length).toBe(3);
    expect(Math.max(...steps.map((s) => s.output_tokens))).toBe(20);
  });

  it('gpt-4o prices, --max-cost 0.5, --ci-max-spend 1: no run passes $0.50 and the sweep never passes $1', async () => {
    // 60,000-token thoughts at gpt-4o's $10/1M output would cost $0.60 a call; max_tokens 20,000 caps a call at $0.20 + input.
    const out = path.join(tmp, 'capped');
    const r = await bench([
      '--scenario',
      'seed-calibrated',
      '--model',
      `sim:${LONG_THOUGHTS}`,
      '--price-model',
      'gpt-4o',
      '--max-output-tokens',
      '20000',
      '--max-cost',
      '0.5',
      '--ci-max-spend',
      '1',
      '-n',
      '8',
      '-j',
      '2',
      '-q',
      '--out',
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const runs = jsonl<RunRecord>(path.join(out, 'runs.jsonl'));
    expect(runs.length).toBeGreaterThan(0);
    for (const run of runs) expect(run.cost_usd).toBeLessThanOrEqual(0.5);
    const meta = JSON.parse(fs.readFileSync(path.join(out, 'meta.json'), 'utf8')) as {
      status: string;
      spend: { spent_usd: number; overrun_usd?: number };
    };
    expect(meta.spend.spent_usd).toBeLessThanOrEqual(1);
    expect(runs.reduce((a, x) => a + x.cost_usd, 0)).toBeLessThanOrEqual(1);
    expect(meta.spend.overrun_usd).toBeUndefined();
    expect(meta.status).toBe('capped');
    expect(r.stderr).toMatch(/spend cap \$1\.00 reached: \d+ of 8 run\(s\) not started/);
  });
});

describe('bench serve honours max_tokens on the wire', () => {
  it('finish_reason length and exactly max_tokens billed, plain and streamed', async () => {
    const server = await serve();
    try {
      const body = (extra: object) => ({
        model: 'seed-calibrated',
        seed: 1,
        max_tokens: 12,
        messages: [
          { role: 'system', content: 'You are a research agent.' },
          { role: 'user', content: 'Collect sources.' },
        ],
        tools: [
          {
            type: 'function',
            function: { name: 'search', parameters: { type: 'object', properties: { query: { type: 'string' } } } },
          },
        ],
        ...extra,
      });
      const post = (b: object) =>
        fetch(`${server.url}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(b),
        });
      const plain = (await (await post(body({}))).json()) as {
        choices: Array<{ finish_reason: string; message: AssistantMessage }>;
        usage: { completion_tokens: number };
      };
      expect(plain.choices[0]!.finish_reason).toBe('length');
      expect(plain.usage.completion_tokens).toBe(12);
      expect(countText(plain.choices[0]!.message.content!)).toBe(12);
      expect(plain.choices[0]!.message.tool_calls).toBeUndefined();
      const streamed = await (await post(body({ stream: true, max_completion_tokens: 12 }))).text();
      expect(streamed).toContain('"finish_reason":"length"');
    } finally {
      await server.close();
    }
  });

  it('a cut inside the tool call returns the call with truncated, invalid JSON arguments', async () => {
    const server = await serve({ profile: LONG_ARGS });
    try {
      const res = await fetch(`${server.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        // The sim calls only offered tools: the request offers the profile's search.
        body: JSON.stringify({
          model: 'any',
          seed: 1,
          max_tokens: 40,
          messages: [{ role: 'user', content: 'Collect sources.' }],
          tools: [
            {
              type: 'function',
              function: {
                name: 'search',
                parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
              },
            },
          ],
        }),
      });
      const c = (await res.json()) as {
        choices: Array<{ finish_reason: string; message: AssistantMessage }>;
        usage: { completion_tokens: number };
      };
      expect(c.choices[0]!.finish_reason).toBe('length');
      expect(c.usage.completion_tokens).toBe(40);
      const args = c.choices[0]!.message.tool_calls![0]!.function.arguments;
      expect(args.startsWith('{"query":"agent loop token cost')).toBe(true);
      expect(() => JSON.parse(args)).toThrow();
    } finally {
      await server.close();
    }
  });
});

describe('a provider that ignores max_tokens (bench serve --faults overlong)', () => {
  it('the run records the overrun, its detail and the summary say so, and the spend cap stops starting runs', async () => {
    const server = await serve({ errorRate: 1, faults: ['overlong'] });
    const out = path.join(tmp, 'overlong');
    let r: Awaited<ReturnType<typeof benchAsync>>;
    try {
      // seed-calibrated writes ~150 output tokens a step; asked for 20, at gpt-4o prices a call overshoots a $0.001 budget.
      r = await benchAsync(
        [
          '--model',
          'openai:seed-calibrated',
          '--base-url',
          server.url,
          '--scenario',
          'seed-calibrated',
          '--price-model',
          'gpt-4o',
          '--max-output-tokens',
          '20',
          '--max-cost',
          '0.001',
          '--ci-max-spend',
          '0.0025',
          '-n',
          '5',
          '-j',
          '1',
          '--out',
          out,
        ],
        { OPENAI_API_KEY: FAKE_KEY },
      );
    } finally {
      await server.close();
    }
    expect(r.code, r.stderr).toBe(0);
    const runs = jsonl<RunRecord>(path.join(out, 'runs.jsonl'));
    // Two runs fit the cap at once (a provider sweep keeps several runs open, here sharing one call
    // slot); the first answer over max_tokens halts the sweep: the other run makes no call, no
    // further run starts, and the spend stays within the cap.
    expect(runs).toHaveLength(2);
    const [over, halted] = [...runs].sort(
      (a, b) => Number(!a.extra?.output_overrun) - Number(!b.extra?.output_overrun),
    );
    const overrun = over!.extra!.output_overrun as { calls: number; tokens: number; max_output_tokens: number };
    expect(overrun.calls).toBe(1);
    expect(overrun.max_output_tokens).toBe(20);
    expect(overrun.tokens).toBeGreaterThan(100);
    expect(over!.cost_usd).toBeGreaterThan(0.001);
    expect(over!.stop_detail).toMatch(
      /^budget \$0\.0010: spent .* — model ignored max_tokens: 1 call\(s\) returned more than 20 output tokens .*; budget \$0\.001 exceeded: spent \$0\.00\d+$/,
    );
    expect(halted!.extra?.output_overrun).toBeUndefined();
    expect(halted!.stop_reason).toBe('error');
    expect(halted!.stop_detail).toBe(
      'not continued at step 0: a model in this sweep returned more output than max_tokens, so the spend cap stopped every further call',
    );
    expect(halted!.cost_usd).toBe(0);
    expect(r.stdout).toMatch(/the model ignored max_tokens in 1 of 2 runs/);
    expect(fs.readFileSync(path.join(out, 'summary.md'), 'utf8')).toMatch(
      /the model ignored max_tokens in 1 of 2 runs/,
    );
    expect(r.stderr).toMatch(
      /a model returned more output than max_tokens, so runs spent \$[\d.]+ beyond their budgets: no further run was started \(3 of 5 not started; \$[\d.]+ spent, within the \$0\.0025 cap\)/,
    );
    const meta = JSON.parse(fs.readFileSync(path.join(out, 'meta.json'), 'utf8')) as {
      status: string;
      spend: { spent_usd: number; overrun_usd: number; runs_skipped: number };
    };
    expect(meta.status).toBe('capped');
    expect(meta.spend.overrun_usd).toBeGreaterThan(0);
    expect(meta.spend.spent_usd).toBeLessThanOrEqual(0.0025);
    expect(meta.spend.runs_skipped).toBe(3);
  });
});

describe('profile numbers are bounded', () => {
  it('thought_tokens: 1e308 is a load error naming the file and the field, exit 2, nothing written', async () => {
    const file = path.join(tmp, 'huge.yaml');
    fs.writeFileSync(
      file,
      fs
        .readFileSync(LONG_THOUGHTS, 'utf8')
        .replace('id: long-thoughts', 'id: huge')
        .replace('thought_tokens: 60000', 'thought_tokens: 1e308'),
    );
    const out = path.join(tmp, 'huge-out');
    const r = await bench(['--scenario', 'seed-calibrated', '--model', `sim:${file}`, '-n', '1', '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`bench: ${file}: thought_tokens: Too big: expected number to be <=100000`);
    expect(fs.existsSync(out)).toBe(false);
  });

  it.each([
    [
      'latency_ms: 1000',
      'latency_ms: { mean: 1e308, sd: 1 }',
      'latency_ms.mean: Too big: expected number to be <=600000',
    ],
    [
      'steps_to_done: { fixed: 100000 }',
      'steps_to_done: { fixed: 1e300 }',
      'steps_to_done.fixed: Too big: expected number to be <=1000000',
    ],
  ])('%s → %s is refused', async (from, to, message) => {
    const file = path.join(tmp, 'bounded.yaml');
    fs.writeFileSync(
      file,
      fs.readFileSync(LONG_THOUGHTS, 'utf8').replace('id: long-thoughts', 'id: bounded').replace(from, to),
    );
    const r = await bench([
      '--scenario',
      'seed-calibrated',
      '--model',
      `sim:${file}`,
      '-n',
      '1',
      '--out',
      path.join(tmp, 'bounded-out'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(new RegExp(`^bench: ${file}: .*${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  });
});
