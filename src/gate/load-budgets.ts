// budgets.yaml → the scenarios under test (with their prompt overrides), the sweep to run, and the
// budgets to hold. Every problem names the file and the field.
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../contracts/errors.ts';
import { RUN_DEFAULTS } from '../runner/run-defaults.ts';
import { buildSweepSpec, type RunOptions } from '../runner/plan.ts';
import { DEFAULT_TRANSPORT, validateModelSpec, type ModelTransport } from '../models/factory.ts';
import type { SweepSpec } from '../runner/sweep.ts';
import { resolveScenario } from '../scenario/loader.ts';
import type { Scenario } from '../scenario/schema.ts';
import { loadYamlFile } from '../scenario/yaml-file.ts';
import { BudgetsSchema, type AssertionsSpec, type Budgets, type MaxRegression, type ScenarioEntry } from './budgets-schema.ts';

export interface ScenarioBudget {
  scenario: Scenario;
  assertions: AssertionsSpec;
  maxRegression: MaxRegression;
}

export interface LoadedBudgets {
  file: string;
  budgets: Budgets;
  spec: SweepSpec;
  checks: ScenarioBudget[];
}

/** Re-throws a UsageError with the file (and the field, when known) in front. */
function at<T>(file: string, field: string | null, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof UsageError) throw new UsageError(`${file}: ${field ? `${field}: ` : ''}${e.message.replace(`${file}: `, '')}`);
    throw e;
  }
}

function readText(file: string, relative: string, field: string): string {
  const p = path.resolve(path.dirname(file), relative);
  try {
    const text = fs.readFileSync(p, 'utf8').trim();
    if (text) return text;
  } catch (e) {
    throw new UsageError(`${file}: ${field}: cannot read ${relative} (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  throw new UsageError(`${file}: ${field}: ${relative} is empty`);
}

function scenarioUnderTest(file: string, e: ScenarioEntry, i: number): Scenario {
  const field = `scenarios[${i}]`;
  const ref = /[/\\]|\.ya?ml$/.test(e.scenario) ? path.resolve(path.dirname(file), e.scenario) : e.scenario;
  const base = at(file, `${field}.scenario`, () => resolveScenario(ref));
  const system = e.system_file !== undefined ? readText(file, e.system_file, `${field}.system_file`) : e.system;
  const goal = e.goal_file !== undefined ? readText(file, e.goal_file, `${field}.goal_file`) : e.goal;
  if (e.assertions.success_rate && !base.check)
    throw new UsageError(`${file}: ${field}.assertions.success_rate: scenario '${base.id}' has no check, so its success is not measured`);
  if (base.agent !== 'react') {
    if (system !== undefined) throw new UsageError(`${file}: ${field}.system: scenario '${base.id}' is a task-queue scenario, which has role prompts, not one system prompt`);
    return { ...base, id: e.id ?? base.id, goal: goal ?? base.goal };
  }
  return { ...base, id: e.id ?? base.id, system: system ?? base.system, goal: goal ?? base.goal };
}

const flag = (v: number | 'off' | undefined, fallback: string) => (v === undefined ? fallback : String(v));

/** `replay:<cassette>` is a path relative to the budgets file, like its other files. */
function modelSpec(file: string, model: string): string {
  const replay = /^replay:(.+)$/.exec(model);
  return replay ? `replay:${path.resolve(path.dirname(file), replay[1]!)}` : model;
}

export function loadBudgets(file: string, transport: ModelTransport = DEFAULT_TRANSPORT): LoadedBudgets {
  const budgets = loadYamlFile(file, BudgetsSchema);
  const model = modelSpec(file, budgets.model);
  at(file, 'model', () => validateModelSpec(model, transport));
  const checks = budgets.scenarios.map((e, i) => ({
    scenario: scenarioUnderTest(file, e, i),
    assertions: e.assertions,
    maxRegression: { ...budgets.max_regression, ...e.max_regression },
  }));
  const ids = new Set<string>();
  checks.forEach((c, i) => {
    if (ids.has(c.scenario.id)) throw new UsageError(`${file}: scenarios[${i}]: scenario '${c.scenario.id}' is named twice (give one an id)`);
    ids.add(c.scenario.id);
  });
  const l = budgets.limits;
  const options: RunOptions = {
    ...RUN_DEFAULTS,
    model,
    steps: flag(l.steps, RUN_DEFAULTS.steps),
    maxCost: flag(l.max_cost, RUN_DEFAULTS.maxCost),
    timeout: flag(l.timeout, RUN_DEFAULTS.timeout),
    maxRepeat: flag(l.max_repeat, RUN_DEFAULTS.maxRepeat),
    maxTokens: flag(l.max_tokens, RUN_DEFAULTS.maxTokens),
    maxCalls: flag(l.max_calls, RUN_DEFAULTS.maxCalls),
    repeat: String(budgets.repeats),
    seed: String(budgets.seed),
    maxOutputTokens: String(budgets.max_output_tokens ?? RUN_DEFAULTS.maxOutputTokens),
    ...(budgets.price_model ? { priceModel: budgets.price_model } : {}),
    ...(budgets.agent_cmd ? { agentCmd: budgets.agent_cmd } : {}),
  };
  const spec = at(file, null, () => buildSweepSpec(options, transport, checks.map((c) => c.scenario)));
  return { file, budgets, spec, checks };
}
