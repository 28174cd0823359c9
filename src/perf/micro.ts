// Micro-benchmarks (tinybench) of the harness's hot operations, each on realistic inputs taken from
// a real seed-calibrated run.
import { Bench } from 'tinybench';
import { newRunState, type PendingCall, type RunState } from '../brakes/brake.ts';
import { firstStop } from '../brakes/brake.ts';
import { brakesFor } from '../brakes/index.ts';
import { callCost } from '../meter/pricing.ts';
import { messageTokensUncached, TokenCounter } from '../meter/tokens.ts';
import type { AssistantMessage, ChatMessage } from '../contracts/chat.ts';
import { summarizeConfigs } from '../report/stats/aggregate.ts';
import type { RunRecord } from '../contracts/records.ts';
import { executeRun } from '../runner/run-one.ts';
import { expandSweep, type RunPlan } from '../runner/sweep.ts';
import { buildSweepSpec } from '../runner/plan.ts';
import { ToolRegistry } from '../tools/registry.ts';
import { runOptions } from './sweep.ts';

export interface MicroResult {
  name: string;
  /** Median latency (robust on a shared machine), and the mean. */
  medianUs: number;
  meanUs: number;
  opsPerSecond: number;
  samples: number;
}

function plan(steps: number): RunPlan {
  return expandSweep(
    buildSweepSpec(
      runOptions({ scenario: 'seed-calibrated', steps: String(steps), repeat: '1', timeout: 'off', maxCost: 'off' }),
    ),
  )[0]!;
}

const run = (p: RunPlan, counter = new TokenCounter()) =>
  executeRun(p, {
    counter,
    tools: () => ToolRegistry.fromDecls(p.scenario.tools),
    onStep: () => {},
    transcript: false,
  });

/** `records` run records over 10 configurations, varied around a real one. */
export function syntheticRuns(template: RunRecord, records: number): RunRecord[] {
  return Array.from({ length: records }, (_, i) => ({
    ...template,
    run_id: `r${i}`,
    config_id: `seed-calibrated steps=${(1 + (i % 10)) * 10}`,
    steps: 10 + (i % 91),
    calls: 10 + (i % 91),
    input_tokens: 20_000 + ((i * 7919) % 2_000_000),
    output_tokens: 1_000 + ((i * 104729) % 12_000),
    cost_usd: ((i * 31) % 1000) / 3000,
  }));
}

export async function runMicro(timeMs: number): Promise<MicroResult[]> {
  const onePlan = plan(1);
  const long = await run(plan(100));
  const history = long.messages;
  const tools = ToolRegistry.fromDecls(onePlan.scenario.tools).specs;
  const toolMessage = history.find((m) => m.role === 'tool')!;
  const [answer, observation] = history.slice(-2) as [AssistantMessage, ChatMessage];
  const settings = long.record.settings;

  // Metering one step: the history is already counted; a new answer and observation arrive.
  const counter = new TokenCounter();
  const conversation = history.slice(0, -2);
  counter.prompt(conversation, tools);
  const base = conversation.length;

  const brakes = brakesFor({ ...settings.limits, max_steps: 100, max_cost_usd: 0.5, timeout_s: 120, max_repeat: 3 });
  const state: RunState = {
    ...newRunState(),
    steps: 50,
    calls: 50,
    inputTokens: 500_000,
    outputTokens: 7_000,
    costUsd: 0.08,
    elapsedMs: 60_000,
  };
  const pending: PendingCall = {
    role: 'act',
    inputTokens: 30_000,
    maxOutputTokens: 1024,
    projectedCostUsd: callCost(settings.price, 30_000, 1024, 0),
  };

  const records = syntheticRuns(long.record, 10_000);

  const bench = new Bench({ time: timeMs, iterations: 10, warmup: true });
  bench
    .add('tokenize a message (a ~430-token tool result)', () => {
      messageTokensUncached(toolMessage);
    })
    .add('meter one step (100-step history + answer + observation)', () => {
      conversation.length = base;
      const a = { ...answer };
      conversation.push(a, { ...observation } as ChatMessage);
      const input = counter.prompt(conversation, tools);
      callCost(settings.price, input, counter.produced(a), 0);
    })
    .add('one simulated step end to end (a 1-step run)', async () => {
      await run(onePlan);
    })
    .add('one brake check (six brakes, before a call)', () => {
      firstStop(brakes, (b) => b.beforeCall?.(state, pending));
    })
    .add('aggregate 10k run records', () => {
      summarizeConfigs(records);
    });
  await bench.run();
  return bench.tasks.map((t) => {
    const r = t.result;
    if (r.state !== 'completed') throw new Error(`benchmark '${t.name}' did not complete (${r.state})`);
    return {
      name: t.name,
      medianUs: r.latency.p50 * 1000,
      meanUs: r.latency.mean * 1000,
      opsPerSecond: r.throughput.mean,
      samples: r.latency.samplesCount,
    };
  });
}
