// One run with reflection / context settings, in process (no results directory), on top of test/helpers.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TokenCounter } from '../../src/meter/tokens.ts';
import type { Reflection } from '../../src/contracts/settings.ts';
import { gridOf, runPlans, specOf, type Ran } from '../helpers.ts';

export interface OneRunOptions {
  scenario: string;
  model?: string;
  steps?: number | null;
  maxCalls?: number | null;
  reflection?: Reflection;
  maxReflections?: number;
  context?: string;
}

export async function oneRun(o: OneRunOptions): Promise<Ran & { counter: TokenCounter }> {
  const grid = gridOf(
    { ...(o.steps !== undefined ? { max_steps: o.steps } : {}), max_calls: o.maxCalls ?? null },
    { model: [o.model ?? 'sim'], reflection: [o.reflection ?? 'off'], context: [o.context ?? 'full'] },
  );
  const spec = specOf([o.scenario], grid);
  spec.fixed.max_reflections = o.maxReflections ?? 2;
  const counter = new TokenCounter();
  const [run] = await runPlans(spec, counter);
  return { ...run!, counter };
}

/** Writes YAML text to a fresh temporary file and returns its path. */
export function tempYaml(name: string, text: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-test-'));
  const file = path.join(dir, `${name}.yaml`);
  fs.writeFileSync(file, text);
  return file;
}
