import { UsageError } from '../contracts/errors.ts';
import { scenarioDigest } from '../results/digest.ts';
import type { Meta } from '../results/meta.ts';
import type { LoadedBudgets } from './load-budgets.ts';

/** Results made by another budgets file (another prompt, model or repeats) must not be judged as this one's. */
export function assertSameSweep(loaded: LoadedBudgets, meta: Meta, dirArg: string): void {
  const { spec } = loaded;
  const differs: string[] = [];
  for (const s of spec.scenarios) {
    const digest = meta.scenario_digests?.[s.id];
    if (!meta.scenarios.includes(s.id)) differs.push(`scenario '${s.id}' was not run`);
    else if (digest && digest !== scenarioDigest(s)) differs.push(`scenario '${s.id}' was run with another prompt`);
  }
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  if (!same(meta.grid, spec.grid)) differs.push('model or limits differ');
  if (!same(meta.fixed, spec.fixed)) differs.push('pricing or output limits differ');
  if (meta.repeat !== spec.repeat) differs.push(`repeats ${meta.repeat}, not ${spec.repeat}`);
  if (!same(meta.adaptive ?? null, loaded.adaptive ?? null))
    differs.push(
      loaded.adaptive ? 'repeats were not adaptive with these min, max, batch and confidence' : 'repeats were adaptive',
    );
  if (meta.seed !== spec.seed) differs.push(`seed ${meta.seed}, not ${spec.seed}`);
  if (meta.shard)
    differs.push(
      `it holds only shard ${meta.shard.index}/${meta.shard.count} (merge the shards with bench merge first)`,
    );
  if (differs.length)
    throw new UsageError(`--from ${dirArg}: these results do not match ${loaded.file}: ${differs.join('; ')}`);
}
