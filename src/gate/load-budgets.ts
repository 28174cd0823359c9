// budgets.yaml → the scenarios under test (with their prompt overrides), the sweep to run, and the
// budgets to hold. Every problem names the file and the field.
import path from 'node:path';
import { ConfigError, UsageError } from '../contracts/errors.ts';
import { InputFileError, readInputFile } from '../contracts/input-file.ts';
import { RUN_DEFAULTS } from '../runner/run-defaults.ts';
import { LIMITS, fieldName, optionName } from '../contracts/limits.ts';
import { buildSweepSpec, parseLimits, requireLengthBrake, type RunOptions } from '../runner/plan.ts';
import { DEFAULT_TRANSPORT, validateModelSpec, type ModelTransport } from '../models/factory.ts';
import type { SweepSpec } from '../runner/sweep.ts';
import { resolveScenario } from '../scenario/loader.ts';
import type { Scenario } from '../scenario/schema.ts';
import { loadYamlFile } from '../scenario/yaml-file.ts';
import { namedFile } from './named-file.ts';
import {
  BudgetsSchema,
  type AdaptiveRepeats,
  type AssertionsSpec,
  type Budgets,
  type MaxRegression,
  type ScenarioEntry,
} from './budgets-schema.ts';

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
  /** Set when `repeats` is `{ min, max, batch }`: the sweep then plans `max` repeats and runs them in batches. */
  adaptive?: AdaptiveRepeats;
}

/** Re-throws a UsageError with the file (and the field, when known) in front. */
function at<T>(file: string, field: string | null, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof UsageError) throw new ConfigError(file, field, e.message.replace(`${file}: `, ''));
    throw e;
  }
}

function readText(file: string, relative: string, field: string, allowOutside: boolean): string {
  const p = namedFile(file, relative, `${file}: ${field}`, allowOutside);
  let text: string;
  try {
    text = readInputFile(p).trim();
  } catch (e) {
    const why = e instanceof InputFileError ? e.why : String(e);
    throw new UsageError(`${file}: ${field}: cannot read ${relative} (${why})`);
  }
  if (text) return text;
  throw new UsageError(`${file}: ${field}: ${relative} is empty`);
}

function scenarioUnderTest(file: string, e: ScenarioEntry, i: number, allowOutside: boolean): Scenario {
  const field = `scenarios[${i}]`;
  const ref = /[/\\]|\.ya?ml$/.test(e.scenario)
    ? namedFile(file, e.scenario, `${file}: ${field}.scenario`, allowOutside)
    : e.scenario;
  const base = at(file, `${field}.scenario`, () => resolveScenario(ref));
  const system =
    e.system_file !== undefined ? readText(file, e.system_file, `${field}.system_file`, allowOutside) : e.system;
  const goal = e.goal_file !== undefined ? readText(file, e.goal_file, `${field}.goal_file`, allowOutside) : e.goal;
  if (e.assertions.success_rate && !base.check)
    throw new UsageError(
      `${file}: ${field}.assertions.success_rate: scenario '${base.id}' has no check, so its success is not measured`,
    );
  if (base.agent !== 'react') {
    if (system !== undefined)
      throw new UsageError(
        `${file}: ${field}.system: scenario '${base.id}' is a task-queue scenario, which has role prompts, not one system prompt`,
      );
    return { ...base, id: e.id ?? base.id, goal: goal ?? base.goal };
  }
  return { ...base, id: e.id ?? base.id, system: system ?? base.system, goal: goal ?? base.goal };
}

/** `replay:<cassette>` is a path relative to the budgets file, like its other files. */
function modelSpec(file: string, model: string): string {
  const replay = /^replay:(.+)$/.exec(model);
  return replay ? `replay:${path.resolve(path.dirname(file), replay[1]!)}` : model;
}

export interface LoadOptions {
  /** Read scenario and prompt files outside the budgets file's tree and the working directory (--allow-outside-files). */
  allowOutsideFiles?: boolean;
}

export function loadBudgets(
  file: string,
  transport: ModelTransport = DEFAULT_TRANSPORT,
  o: LoadOptions = {},
): LoadedBudgets {
  const budgets = loadYamlFile(file, BudgetsSchema);
  const model = modelSpec(file, budgets.model);
  at(file, 'model', () => validateModelSpec(model, transport));
  const checks = budgets.scenarios.map((e, i) => ({
    scenario: scenarioUnderTest(file, e, i, o.allowOutsideFiles ?? false),
    assertions: e.assertions,
    maxRegression: { ...budgets.max_regression, ...e.max_regression },
  }));
  const ids = new Set<string>();
  checks.forEach((c, i) => {
    if (ids.has(c.scenario.id))
      throw new UsageError(`${file}: scenarios[${i}]: scenario '${c.scenario.id}' is named twice (give one an id)`);
    ids.add(c.scenario.id);
  });
  const l: Record<string, number | 'off' | undefined> = budgets.limits;
  const options: RunOptions = {
    ...RUN_DEFAULTS,
    ...Object.fromEntries(
      LIMITS.flatMap((d) => (l[fieldName(d)] === undefined ? [] : [[optionName(d), String(l[fieldName(d)])]])),
    ),
    model,
    repeat: String(typeof budgets.repeats === 'number' ? budgets.repeats : budgets.repeats.max),
    seed: String(budgets.seed),
    maxOutputTokens: String(budgets.max_output_tokens ?? RUN_DEFAULTS.maxOutputTokens),
    ...(budgets.price_model ? { priceModel: budgets.price_model } : {}),
    ...(budgets.agent_cmd ? { agentCmd: budgets.agent_cmd } : {}),
  };
  // Checked here first so the error names the budgets file's fields, not the flags they stand for.
  at(file, null, () => requireLengthBrake(parseLimits(options), (d) => `limits.${fieldName(d)}`));
  const spec = at(file, null, () =>
    buildSweepSpec(
      options,
      transport,
      checks.map((c) => c.scenario),
    ),
  );
  if (typeof budgets.repeats === 'number') return { file, budgets, spec, checks };
  // Each scenario is decided on one sequence of runs; several models would interleave several.
  if (spec.grid.model.length > 1)
    throw new UsageError(
      `${file}: repeats: adaptive repeats decide one model per scenario; model names ${spec.grid.model.length}`,
    );
  return { file, budgets, spec, checks, adaptive: budgets.repeats };
}
