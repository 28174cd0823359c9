// `--shard i/n`: a deterministic slice of the planned runs, so a sweep too big for one machine runs
// on a CI matrix and `bench merge` puts the pieces back together.
import { UsageError } from '../contracts/errors.ts';
import type { Shard } from '../contracts/sweep-state.ts';

export function parseShard(text: string, flag = '--shard'): Shard {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || index < 1 || index > count || count > 10_000)
    throw new UsageError(`${flag}: '${text}' is not a shard i/n with 1 ≤ i ≤ n ≤ 10000 (e.g. 2/4)`);
  return { index, count };
}

/** Round-robin over the plan order, so every shard gets a share of each scenario and configuration. */
export function shardSlice<T>(plans: readonly T[], shard: Shard | undefined): T[] {
  if (!shard) return [...plans];
  return plans.filter((_, i) => i % shard.count === shard.index - 1);
}
