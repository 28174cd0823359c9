// Volume projection: what each configuration costs per day and per month at a given number of runs.
import { UsageError } from '../contracts/errors.ts';
import type { ConfigSummary } from './aggregate.ts';

export const DAYS_PER_MONTH = 30;
const PER_DAY: Record<string, number> = { hour: 24, day: 1, week: 1 / 7, month: 1 / DAYS_PER_MONTH };
export const DEFAULT_VOLUMES = [1_000, 10_000, 100_000];

/** `10000/day,5000/hour,2e6/month` (a bare number is per day) → runs per day. */
export function parseVolumes(text: string): number[] {
  const out: number[] = [];
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const m = /^([0-9][0-9_.e+]*)\s*(?:\/\s*([a-z]+))?$/i.exec(part);
    const n = m ? Number(m[1]!.replace(/_/g, '')) : NaN;
    const unit = (m?.[2] ?? 'day').toLowerCase();
    if (!m || !Number.isFinite(n) || n <= 0) throw new UsageError(`--volume: '${part}' is not a positive number of runs, like 10000/day`);
    if (!(unit in PER_DAY)) throw new UsageError(`--volume: '${part}': unit must be one of ${Object.keys(PER_DAY).join(', ')}`);
    out.push(n * PER_DAY[unit]!);
  }
  if (out.length === 0) throw new UsageError('--volume: no volume given (e.g. 10000/day)');
  return out;
}

export interface VolumeProjection {
  config_id: string;
  scenario: string;
  runs_per_day: number;
  cost_usd_per_day: number;
  cost_usd_per_month: number;
}

export function projectVolumes(summary: readonly ConfigSummary[], volumes: readonly number[]): VolumeProjection[] {
  return summary.flatMap((c) =>
    volumes.map((v) => ({
      config_id: c.config_id,
      scenario: c.scenario,
      runs_per_day: v,
      cost_usd_per_day: c.cost_usd.mean * v,
      cost_usd_per_month: c.cost_usd.mean * v * DAYS_PER_MONTH,
    })),
  );
}
