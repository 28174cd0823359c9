// GitHub Actions workflows as the tests run them: their steps' `run:` commands, run with bash as the
// runner runs them, with `npx bench` standing for this checkout's bench (never an installed package).
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { ROOT } from './cli.ts';

export interface Step {
  run?: string;
  uses?: string;
  name?: string;
  env?: Record<string, string>;
  with?: Record<string, unknown>;
}
export type Workflow = { jobs: Record<string, { steps: Step[] }> };

export const parseWorkflow = (text: string) => YAML.parse(text) as Workflow;
export const workflow = (file: string) => parseWorkflow(fs.readFileSync(file, 'utf8'));
export const runs = (w: Workflow) =>
  Object.values(w.jobs).flatMap((j) => j.steps.flatMap((s) => (s.run ? [s.run] : [])));

/** Writes `dir/npx`, which runs this checkout's bench for `npx bench …`; put `dir` first on PATH. */
export function npxBench(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'npx'),
    `#!/bin/sh\n[ "$1" = bench ] && shift\nexec "${process.execPath}" "${path.join(ROOT, 'bin/bench.js')}" "$@"\n`,
    { mode: 0o755 },
  );
}
