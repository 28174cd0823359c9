// The framework agents through `bench run --agent-cmd` (the metering gateway in front of the sim),
// on their defaults: the usage each framework reports equals loopbench's steps.jsonl call for call,
// and the step limit, the budget and the spin brake each stop it with one refused call the framework
// surfaces as a clean error (no retries), the withheld answer marked in steps.jsonl. Each agent
// process runs under the fetch guard, one wire log per run. Every protocol: Chat Completions, the
// Responses API (the Agents SDK and the AI SDK on their defaults) and Anthropic Messages.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentSweep } from './support/agent-sweep.ts';
import { CASES, GUARD, idOf, readWire, refusalCode, toolCallCheck, wireFile } from './support/framework-agents.ts';
import { benchAsync } from './serve-helpers.ts';
import { patient } from './helpers/patient.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-frameworks-gateway-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

// The Agents SDK exports traces to api.openai.com by default (framework-agents.test.ts shows it); here it is told not to.
const QUIET: Record<string, Record<string, string>> = {
  'agents-sdk-agent.mjs': { OPENAI_AGENTS_DISABLE_TRACING: '1' },
};
const THROUGH_GATEWAY = CASES.filter((c) => !c.reaches || QUIET[c.script]);

function agentEnv(c: (typeof CASES)[number]) {
  const usageDir = fs.mkdtempSync(path.join(tmp, 'usage-'));
  const wireDir = fs.mkdtempSync(path.join(tmp, 'wire-'));
  return {
    usageDir,
    wireDir,
    env: {
      HOME: tmp,
      NODE_OPTIONS: `--import ${GUARD}`,
      AGENT_USAGE_DIR: usageDir,
      AGENT_WIRE_DIR: wireDir,
      ...QUIET[c.script],
      ...c.env,
    },
  };
}

const cmd = (c: (typeof CASES)[number]) => `node examples/agents/${c.script}`;

describe.concurrent.each(THROUGH_GATEWAY)('$name through bench run --agent-cmd', (c) => {
  it(
    'reaches the answer with usage equal to steps.jsonl call for call; the step limit stops it with one refused call and no retry',
    async () => {
      const { usageDir, wireDir, env } = agentEnv(c);
      const { runs, steps } = await agentSweep(
        { agentCmd: cmd(c), scenario: 'tiny-agent-sum-of-squares', steps: '2,10', repeat: '1', concurrency: '2' },
        env,
      );
      expect(runs).toHaveLength(2);
      const done = runs.find((r) => r.settings.limits.max_steps === 10)!;
      expect(done).toMatchObject({ stop_reason: 'done', success: true });
      const reported = JSON.parse(fs.readFileSync(path.join(usageDir, `${done.run_id}.json`), 'utf8')) as Array<{
        input: number;
        output: number;
      }>;
      const metered = steps
        .filter((s) => s.run_id === done.run_id)
        .map((s) => ({ input: s.input_tokens, output: s.output_tokens }));
      expect(reported.map(({ input, output }) => ({ input, output }))).toEqual(metered);
      const wire = readWire(wireFile(wireDir, done.run_id));
      expect(wire.filter((e) => e.url).map(idOf)).toHaveLength(metered.length);
      expect(wire.filter((e) => e.blocked)).toEqual([]);
      expect(toolCallCheck(c.route, wire).problems).toEqual([]);

      const stopped = runs.find((r) => r.settings.limits.max_steps === 2)!;
      expect(stopped).toMatchObject({ stop_reason: 'max_steps', steps: 2 });
      const calls = readWire(wireFile(wireDir, stopped.run_id)).filter((e) => e.url);
      // Two answered calls, then exactly one refusal: a 403 the framework does not retry.
      expect(calls.map((e) => e.status)).toEqual([200, 200, 403]);
      expect(refusalCode(c.route, calls[2]!.response!)).toBe('loopbench_max_steps');
    },
    patient(60_000),
  );

  it(
    'the spin brake and --max-cost each stop it at the gateway with one refused call',
    async () => {
      const { wireDir, env } = agentEnv(c);
      const spin = await agentSweep(
        {
          agentCmd: cmd(c),
          scenario: 'tiny-agent-sum-of-squares',
          model: 'sim:autogpt-recursive-verification',
          steps: '30',
          repeat: '1',
        },
        { ...env, AGENT_MAX_TURNS: '30' },
      );
      expect(spin.runs[0]).toMatchObject({ stop_reason: 'spin' });
      const spinCalls = readWire(wireFile(wireDir, spin.runs[0]!.run_id)).filter((e) => e.url);
      expect(spinCalls.at(-1)!.status).toBe(403);
      expect(refusalCode(c.route, spinCalls.at(-1)!.response!)).toBe('loopbench_spin');
      expect(spinCalls.filter((e) => e.status !== 200)).toHaveLength(1);
      // The answer the brake withheld was billed: one step more than the agent got answers, and marked so.
      const spinSteps = spin.steps.filter((s) => s.run_id === spin.runs[0]!.run_id);
      expect(spinSteps).toHaveLength(spinCalls.length);
      expect(spinSteps.map((s) => s.withheld ?? false)).toEqual([...spinSteps.slice(1).map(() => false), true]);
      const cost = await agentSweep(
        { agentCmd: cmd(c), scenario: 'tiny-agent-sum-of-squares', steps: '10', maxCost: '0.0004', repeat: '1' },
        env,
      );
      expect(cost.runs[0]).toMatchObject({ stop_reason: 'max_cost' });
      expect(cost.runs[0]!.cost_usd).toBeLessThanOrEqual(0.0004);
      const costCalls = readWire(wireFile(wireDir, cost.runs[0]!.run_id)).filter((e) => e.url);
      expect(costCalls.filter((e) => e.status !== 200)).toHaveLength(1);
    },
    patient(60_000),
  );
});

// One agent per protocol.
const REPEATED = ['/v1/chat/completions', '/v1/responses', '/v1/messages'].map((route) =>
  THROUGH_GATEWAY.find((c) => c.route === route)!,
);

it.concurrent.each(REPEATED)(
  '--repeat 5 of $name gives 5 recorded runs and a report',
  async (c) => {
    const { env } = agentEnv(c);
    const out = path.join(tmp, `repeat5-${c.route.split('/').pop()}`);
    const r = await benchAsync(
      [
        'run',
        '--agent-cmd',
        cmd(c),
        '-s',
        'tiny-agent-sum-of-squares',
        '--steps',
        '10',
        '--repeat',
        '5',
        '-j',
        '5',
        '--out',
        out,
      ],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    const runs = fs
      .readFileSync(path.join(out, 'runs.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { stop_reason: string });
    expect(runs).toHaveLength(5);
    expect(runs.every((x) => x.stop_reason === 'done')).toBe(true);
    expect(fs.existsSync(path.join(out, 'report.html'))).toBe(true);
    expect(fs.readFileSync(path.join(out, 'summary.md'), 'utf8')).toMatch(/tiny-agent-sum-of-squares/);
  },
  90_000,
);
