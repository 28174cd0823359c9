// Runs one planned run in process (no results directory), for tests of loops and their hooks.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TokenCounter } from '../../src/meter/tokens.ts';
import type { StepRecord } from '../../src/runner/records.ts';
import { executeRun, type RunResult } from '../../src/runner/run-one.ts';
import { SEED_LIMITS, type Reflection } from '../../src/runner/settings.ts';
import { expandSweep } from '../../src/runner/sweep.ts';
import { resolveScenario } from '../../src/scenario/loader.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';

export interface OneRunOptions {
  scenario: string;
  model?: string;
  steps?: number | null;
  maxCalls?: number | null;
  reflection?: Reflection;
  maxReflections?: number;
  context?: string;
  seed?: number;
}

export interface OneRun extends RunResult {
  steps: StepRecord[];
  counter: TokenCounter;
}

export async function oneRun(o: OneRunOptions): Promise<OneRun> {
  const scenario = resolveScenario(o.scenario);
  const [plan] = expandSweep({
    scenarios: [scenario],
    grid: {
      model: [o.model ?? 'sim'],
      max_steps: [o.steps === undefined ? SEED_LIMITS.max_steps : o.steps],
      max_cost_usd: [SEED_LIMITS.max_cost_usd],
      timeout_s: [null],
      max_repeat: [SEED_LIMITS.max_repeat],
      max_tokens: [null],
      max_calls: [o.maxCalls ?? null],
      max_rounds: [null],
      reflection: [o.reflection ?? 'off'],
      context: [o.context ?? 'full'],
      agent: {},
    },
    fixed: {
      price: { model: 'gpt-4o-mini', input_per_1m: 0.15, cached_input_per_1m: 0.075, output_per_1m: 0.6 },
      prompt_cache: false,
      max_output_tokens: 1024,
      max_reflections: o.maxReflections ?? 2,
    },
    repeat: 1,
    seed: o.seed ?? 1,
  });
  const counter = new TokenCounter();
  const steps: StepRecord[] = [];
  const result = await executeRun(plan!, { counter, tools: (p) => ToolRegistry.fromDecls(p.scenario.tools), onStep: (r) => steps.push(r) });
  return { ...result, steps, counter };
}

/** Writes YAML text to a fresh temporary file and returns its path. */
export function tempYaml(name: string, text: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-test-'));
  const file = path.join(dir, `${name}.yaml`);
  fs.writeFileSync(file, text);
  return file;
}
