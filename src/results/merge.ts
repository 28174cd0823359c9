// `bench merge`: shard directories of one sweep → one results directory, as if it had run on one
// machine, so `bench report` and `bench check --from` read it like any other.
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../contracts/errors.ts';
import { writeJsonAtomic } from './atomic.ts';
import { JsonlWriter, readJsonlLines } from './jsonl.ts';
import { makeWritableDir } from './writable-dir.ts';
import { loadMeta, type Meta } from './meta.ts';
import { FILES, resultFile } from './results-dir.ts';
import { checkRunRecord, checkStepRecord } from './record-shape.ts';
import type { RunRecord, StepRecord } from '../contracts/records.ts';

/**
 * A check of each shard's records that a layer above this one owns (bench merge: each run record against
 * the sum of its steps, as `bench report` checks it): one per shard, fed its records as they are merged.
 */
export interface ShardCheck {
  step(r: StepRecord): void;
  run(r: RunRecord, line: number): void;
  /** Every record of the shard is read: throws a UsageError naming `runsFile` and the line of a run that fails. */
  done(runsFile: string): void;
}

/** Fields every shard of one sweep shares; a difference means the shards are not one sweep. */
const SAME = ['scenarios', 'scenario_digests', 'grid', 'fixed', 'repeat', 'seed'] as const;

interface ShardDir {
  dir: string;
  meta: Meta & { shard: NonNullable<Meta['shard']> };
}

function readShards(dirs: string[]): ShardDir[] {
  const shards = dirs.map((dir) => {
    // Checked: the merged meta.json is made of the shards'.
    const meta = loadMeta(dir);
    const { shard } = meta;
    if (!shard) throw new UsageError(`${dir}: not a shard (its meta.json has no shard; run with --shard i/n)`);
    return { dir, meta: { ...meta, shard } };
  });
  const first = shards[0]!;
  const count = first.meta.shard.count;
  for (const s of shards) {
    for (const k of SAME)
      if (JSON.stringify(s.meta[k]) !== JSON.stringify(first.meta[k]))
        throw new UsageError(`${s.dir}: ${k} differs from ${first.dir}: not a shard of the same sweep`);
    if (s.meta.shard.count !== count)
      throw new UsageError(
        `${s.dir}: shard ${s.meta.shard.index}/${s.meta.shard.count}, but ${first.dir} is one of ${count}`,
      );
  }
  const seen = new Map<number, string>();
  for (const s of shards) {
    const other = seen.get(s.meta.shard.index);
    if (other) throw new UsageError(`${s.dir} and ${other} are both shard ${s.meta.shard.index}/${count}`);
    seen.set(s.meta.shard.index, s.dir);
  }
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !seen.has(i));
  if (missing.length)
    throw new UsageError(
      `missing shard(s) ${missing.map((i) => `${i}/${count}`).join(', ')}: a merge needs all ${count}`,
    );
  return shards.sort((a, b) => a.meta.shard.index - b.meta.shard.index);
}

/**
 * Complete lines only: a shard's crash can leave a partial last line, which the merge drops. Every record is
 * checked as the reports check it (a damaged one is named by file and line, not merged), and a run recorded
 * twice — in two shards, or twice in one — is an error: the merged sweep would count it twice.
 */
async function appendRecords(
  from: string,
  to: JsonlWriter,
  check: typeof checkRunRecord,
  each?: (value: unknown, line: number) => void,
  seen?: Map<string, { file: string; line: number }>,
): Promise<number> {
  let skipped = 0;
  for await (const line of readJsonlLines(from)) {
    if (!line.ok) {
      skipped++;
      continue;
    }
    check(from, line.line, line.value);
    if (seen) {
      const id = (line.value as { run_id: string }).run_id;
      const first = seen.get(id);
      if (first)
        throw new UsageError(
          first.file === from
            ? `${from}: run ${id} is recorded twice (lines ${first.line} and ${line.line})`
            : `${from}: run ${id} is in two shards (also ${first.file} line ${first.line})`,
        );
      seen.set(id, { file: from, line: line.line });
    }
    each?.(line.value, line.line);
    to.write(line.value);
  }
  to.flush();
  return skipped;
}

function mergedMeta(shards: ShardDir[], command: string[]): Meta {
  const metas = shards.map((s) => s.meta);
  const statuses = new Set(metas.map((m) => m.status));
  const status: Meta['status'] =
    statuses.has('running') || statuses.has('interrupted') || statuses.has('failed')
      ? 'interrupted'
      : statuses.has('capped')
        ? 'capped'
        : 'complete';
  const spends = metas.flatMap((m) => (m.spend ? [m.spend] : []));
  const finished = metas.map((m) => m.finished_at);
  const { shard: _shard, ...first } = metas[0]!;
  return {
    ...first,
    status,
    command,
    created_at: metas.map((m) => m.created_at).sort()[0]!,
    finished_at: finished.includes(null) ? null : (finished as string[]).sort().at(-1)!,
    runs_planned: metas[0]!.shard.runs_total,
    runs_done: metas.reduce((n, m) => n + m.runs_done, 0),
    merged_from: shards.map((s) => s.dir),
    ...(spends.length
      ? {
          spend: {
            cap_usd: spends.reduce((n, s) => n + s.cap_usd, 0),
            spent_usd: spends.reduce((n, s) => n + s.spent_usd, 0),
            stopped: spends.some((s) => s.stopped),
            runs_skipped: spends.reduce((n, s) => n + s.runs_skipped, 0),
          },
        }
      : {}),
  };
}

export interface MergeOutcome {
  shards: number;
  runs: number;
  skippedLines: number;
  status: Meta['status'];
}

export async function mergeShards(
  dirs: string[],
  out: string,
  command: string[],
  newCheck?: () => ShardCheck,
): Promise<MergeOutcome> {
  const shards = readShards(dirs);
  makeWritableDir(out, '--out');
  const steps = new JsonlWriter(resultFile(out, 'steps'));
  const runs = new JsonlWriter(resultFile(out, 'runs'));
  const runIds = new Map<string, { file: string; line: number }>();
  const transcriptsOut = path.join(out, FILES.transcripts);
  const hadTranscripts = fs.existsSync(transcriptsOut);
  let skipped = 0;
  let merged = false;
  try {
    for (const s of shards) {
      const check = newCheck?.();
      const runsFile = resultFile(s.dir, 'runs');
      skipped += await appendRecords(resultFile(s.dir, 'steps'), steps, checkStepRecord, (v) =>
        check?.step(v as StepRecord),
      );
      skipped += await appendRecords(
        runsFile,
        runs,
        checkRunRecord,
        (v, line) => check?.run(v as RunRecord, line),
        runIds,
      );
      check?.done(runsFile);
      const transcripts = path.join(s.dir, FILES.transcripts);
      if (fs.existsSync(transcripts)) fs.cpSync(transcripts, transcriptsOut, { recursive: true });
    }
    merged = true;
  } finally {
    try {
      try {
        steps.close();
      } finally {
        runs.close();
      }
    } catch (e) {
      merged = false; // a record not flushed (a full disk): the merge is refused as any other
      throw e;
    } finally {
      // A refused merge leaves no records: what it had written (the refused record among them) would read as a sweep.
      if (!merged) {
        for (const f of [resultFile(out, 'steps'), resultFile(out, 'runs')]) fs.rmSync(f, { force: true });
        if (!hadTranscripts) fs.rmSync(transcriptsOut, { recursive: true, force: true });
      }
    }
  }
  const meta = mergedMeta(shards, command);
  writeJsonAtomic(resultFile(out, 'meta'), meta);
  return { shards: shards.length, runs: runIds.size, skippedLines: skipped, status: meta.status };
}
