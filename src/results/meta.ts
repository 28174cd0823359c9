import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../contracts/paths.ts';
import type { AdaptiveSampling, Shard, SpendState } from '../contracts/sweep-state.ts';
import type { Grid, Fixed } from '../contracts/settings.ts';

export interface Meta {
  tool: 'loopbench';
  version: string;
  /** `capped`: a spend cap stopped the sweep before every planned run had started. `failed`: the
   *  records could not be written (disk full); `failure` says why, and --resume finishes the sweep. */
  status: 'running' | 'complete' | 'interrupted' | 'capped' | 'failed';
  failure?: string;
  created_at: string;
  finished_at: string | null;
  command: string[];
  scenarios: string[];
  /** Where each scenario was loaded from, so `bench --resume` rebuilds the same sweep (absent before resume existed). */
  scenario_files?: string[];
  /** A digest of each scenario's content (prompt, tools, check), so results made with another prompt are told apart. */
  scenario_digests?: Record<string, string>;
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
  /** Set when this directory holds one slice of a sweep (`--shard i/n`). */
  shard?: Shard & { runs_total: number };
  /** Set when the sweep ran under a spend cap (`--ci-max-spend`). */
  spend?: SpendState;
  /** Set when runs went in batches until decided (`runs_planned` then counts the runs scheduled). */
  adaptive?: AdaptiveSampling;
  /** Set by `bench merge`: the shard directories this one was merged from. */
  merged_from?: string[];
  /** Set by `bench import`: the records come from trajectory files, not from a sweep. */
  imported?: { format: string; files: number; skipped: number; notes: string[] };
}

function pkgVersion(name: string): string {
  try {
    return JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return 'unknown';
  }
}

let known: Record<string, string> | undefined;

/** Versions that decide what a sweep measures, read once per process. */
export function versions(): Record<string, string> {
  const own = () => JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version as string;
  known ??= { loopbench: own(), node: process.version, 'gpt-tokenizer': pkgVersion('gpt-tokenizer'), openai: pkgVersion('openai') };
  return { ...known };
}

let commit: string | null | undefined;

/** The checkout's commit, asked of git once per process (a subprocess costs more than a small sweep's step). */
export function gitCommit(): string | null {
  if (commit !== undefined) return commit;
  try {
    commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch {
    commit = null;
  }
  return commit;
}

/** meta.json of a results directory; null when it is missing or unreadable (records alone still report). */
export function readMeta(dir: string): Meta | null {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8')) as Meta;
  } catch {
    return null;
  }
}
