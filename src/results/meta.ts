import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { z } from 'zod';
import { ownVersion } from '../contracts/paths.ts';
import { isTimeZone } from '../contracts/time-zone.ts';
import { ROLES } from '../contracts/chat.ts';
import { UsageError } from '../contracts/errors.ts';
import { limitGridShape } from '../contracts/limits.ts';
import { REFLECTIONS, type Fixed, type Grid } from '../contracts/settings.ts';
import type { AdaptiveSampling, Shard, SpendState } from '../contracts/sweep-state.ts';
import { zodConfigError } from '../scenario/yaml-file.ts';
import { resultFile } from './results-dir.ts';

const require = createRequire(import.meta.url);

const count = z.number().int().nonnegative();
const PriceSchema = z.object({
  model: z.string(),
  input_per_1m: z.number(),
  cached_input_per_1m: z.number(),
  output_per_1m: z.number(),
});

/**
 * meta.json of a results directory. Only checks, no defaults or transforms: a file that passes is
 * already a Meta, and is read as it is (see checkMeta). Bounds are what every writer writes
 * (bench import records max_output_tokens 0 and its highest repeat index, which may be 0).
 */
const MetaSchema = z.object({
  tool: z.literal('loopbench'),
  version: z.string(),
  /** `capped`: a spend cap stopped the sweep before every planned run had started. `failed`: the
   *  records could not be written (disk full); `failure` says why, and --resume finishes the sweep. */
  status: z.enum(['running', 'complete', 'interrupted', 'capped', 'failed']),
  failure: z.string().optional(),
  created_at: z.string(),
  finished_at: z.string().nullable(),
  command: z.array(z.string()),
  scenarios: z.array(z.string()).min(1),
  /** Where each scenario was loaded from, so `bench --resume` rebuilds the same sweep (absent before resume existed). */
  scenario_files: z.array(z.string()).min(1).optional(),
  /** A digest of each scenario's content (prompt, tools, check), so results made with another prompt are told apart. */
  scenario_digests: z.record(z.string(), z.string()).optional(),
  /** The host and port each network provider's calls went to (contracts/model-server.ts); absent for simulated sweeps. */
  model_servers: z.record(z.string(), z.object({ address: z.string(), port: z.number().int() })).optional(),
  /** The sweep's Grid, each limit checked by its row of the table of brakes. */
  grid: z.object({
    model: z.array(z.string()).min(1),
    ...limitGridShape(),
    reflection: z.array(z.enum(REFLECTIONS)),
    context: z.array(z.string()),
    agent: z.record(z.string(), z.array(z.union([z.string(), z.number(), z.boolean(), z.null()]))),
  }),
  /** The sweep's Fixed settings. */
  fixed: z.object({
    price: PriceSchema,
    prompt_cache: z.boolean(),
    max_output_tokens: count,
    max_reflections: count,
    role_models: z.partialRecord(z.enum(ROLES), z.string()).optional(),
    model_prices: z.record(z.string(), PriceSchema).optional(),
  }),
  repeat: count,
  seed: count,
  runs_planned: count,
  runs_done: count,
  /** How the sweep ran, so `bench --resume` runs the rest the same way. */
  options: z.object({ concurrency: z.number().int().positive(), transcripts: z.boolean() }).optional(),
  /** When `bench --resume` continued this directory. */
  resumed_at: z.array(z.string()).optional(),
  versions: z.record(z.string(), z.string()),
  git_commit: z.string().nullable(),
  /** Set when this directory holds one slice of a sweep (`--shard i/n`). */
  shard: z
    .object({ index: z.number().int().positive(), count: z.number().int().positive(), runs_total: count })
    .optional(),
  /** Set when the sweep ran under a spend cap (`--ci-max-spend`). */
  spend: z
    .object({
      cap_usd: z.number(),
      spent_usd: z.number(),
      stopped: z.boolean(),
      runs_skipped: count,
      overrun_usd: z.number().optional(),
    })
    .optional(),
  /** Set when runs went in batches until decided (`runs_planned` then counts the runs scheduled). */
  adaptive: z
    .object({
      min: count,
      max: count,
      batch: count,
      confidence: z.number(),
      rule: z.literal('precision').optional(),
      precision: z.number().positive().optional(),
    })
    .optional(),
  /** Set by `bench merge`: the shard directories this one was merged from. */
  merged_from: z.array(z.string()).optional(),
  /** Set by `bench import`: the records come from trajectory files, not from a sweep. */
  imported: z
    .object({
      format: z.string(),
      files: count,
      skipped: count,
      notes: z.array(z.string()),
      /** `bench import --timezone`: the zone spend-by-day takes days in, for every report of this directory. */
      timezone: z
        .string()
        .refine(isTimeZone, 'not a time zone this Node knows (an IANA name such as Europe/Paris)')
        .optional(),
    })
    .optional(),
});

/** Inferred from the fields alone: `.loose()` would give Meta an index signature, and a misspelt field in a writer would compile. */
export type Meta = z.infer<typeof MetaSchema>;

/** Compile-time: true when the two types have the same fields and each is assignable to the other. */
type Agree<A, B> = [A, keyof A] extends [B, keyof B] ? ([B, keyof B] extends [A, keyof A] ? true : false) : false;
type Holds<T extends readonly true[]> = T;
// meta.json records these types of the sweep whole: a field one side has and the other lacks does not compile.
type MetaAgreesWithSettings = Holds<
  [
    Agree<Meta['grid'], Grid>,
    Agree<Meta['fixed'], Fixed>,
    Agree<NonNullable<Meta['shard']>, Shard & { runs_total: number }>,
    Agree<NonNullable<Meta['spend']>, SpendState>,
    Agree<NonNullable<Meta['adaptive']>, AdaptiveSampling>,
  ]
>;

/** Fields of newer versions are kept, not refused, so results of either version load. */
const MetaFile = MetaSchema.loose();

/** A dependency's version, found as Node finds the package (installed into a user's project, it sits beside loopbench, not under it). */
function pkgVersion(name: string): string {
  for (const dir of require.resolve.paths(name) ?? []) {
    try {
      return JSON.parse(fs.readFileSync(path.join(dir, name, 'package.json'), 'utf8')).version;
    } catch {
      // Not in this node_modules: the next one up.
    }
  }
  return 'unknown';
}

let known: Record<string, string> | undefined;

/** Versions that decide what a sweep measures, read once per process. */
export function versions(): Record<string, string> {
  known ??= {
    loopbench: ownVersion(),
    node: process.version,
    'gpt-tokenizer': pkgVersion('gpt-tokenizer'),
    openai: pkgVersion('openai'),
  };
  return { ...known };
}

let commit: string | null | undefined;

/**
 * The commit of the working directory's checkout — the project whose prompts and scenarios the sweep
 * measures (loopbench's own when run in its checkout) — asked of git once per process (a subprocess
 * costs more than a small sweep's step).
 */
export function gitCommit(): string | null {
  if (commit !== undefined) return commit;
  try {
    commit = execFileSync('git', ['rev-parse', 'HEAD'], { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    commit = null;
  }
  return commit;
}

/**
 * Checks a parsed meta.json in place. The file's own object is kept rather than zod's copy, which
 * lists the fields in the schema's order: the order reaches what bench writes (a resumed or merged
 * meta.json) and what it compares as JSON (grid and fixed, by bench check --from).
 */
function checkMeta(file: string, raw: unknown): asserts raw is Meta {
  const parsed = MetaFile.safeParse(raw);
  if (!parsed.success) throw zodConfigError(file, parsed.error);
}

/** meta.json of a results directory, checked: a missing, unreadable or damaged one is a UsageError naming the file (and the field). */
export function loadMeta(dir: string): Meta {
  const file = resultFile(dir, 'meta');
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    const why =
      (e as NodeJS.ErrnoException).code === 'ENOENT'
        ? 'not found: not a results directory'
        : `cannot read it (${(e as Error).message})`;
    throw new UsageError(`${file}: ${why}`);
  }
  checkMeta(file, raw);
  return raw;
}

/**
 * meta.json for the reports: null when it is missing, unreadable or damaged (the records alone still report), with
 * the reason when the file is there but cannot be used — the caller says so rather than report it as absent unseen.
 */
export function readMetaChecked(dir: string): { meta: Meta | null; problem: string | null } {
  try {
    return { meta: loadMeta(dir), problem: null };
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    return { meta: null, problem: fs.existsSync(resultFile(dir, 'meta')) ? e.message : null };
  }
}

/** meta.json for the reports: null when it is missing, unreadable or damaged. */
export function readMeta(dir: string): Meta | null {
  return readMetaChecked(dir).meta;
}
