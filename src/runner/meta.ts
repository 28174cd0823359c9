import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../paths.ts';
import type { Grid, Fixed } from './sweep.ts';

export interface Meta {
  tool: 'loopbench';
  version: string;
  status: 'running' | 'complete' | 'interrupted';
  created_at: string;
  finished_at: string | null;
  command: string[];
  scenarios: string[];
  /** Where each scenario was loaded from, so `bench --resume` rebuilds the same sweep (absent before resume existed). */
  scenario_files?: string[];
  grid: Grid;
  fixed: Fixed;
  repeat: number;
  seed: number;
  runs_planned: number;
  runs_done: number;
  /** How the sweep ran, so `bench --resume` runs the rest the same way. */
  options?: { concurrency: number; transcripts: boolean };
  /** When `bench --resume` continued this directory. */
  resumed_at?: string[];
  versions: Record<string, string>;
  git_commit: string | null;
}

function pkgVersion(name: string): string {
  try {
    return JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return 'unknown';
  }
}

export function versions(): Record<string, string> {
  const own = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version as string;
  return { loopbench: own, node: process.version, 'gpt-tokenizer': pkgVersion('gpt-tokenizer'), openai: pkgVersion('openai') };
}

export function gitCommit(): string | null {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch {
    return null;
  }
}
