// Volume projection: what each configuration costs per day and per month at a given number of runs.
import { UsageError } from '../../contracts/errors.ts';
import type { ConfigSummary } from './aggregate.ts';

export const DAYS_PER_MONTH = 30;
const PER_DAY: Record<string, number> = { hour: 24, day: 1, week: 1 / 7, month: 1 / DAYS_PER_MONTH };

/** A volume as the reports compute with it (per day) and as the user wrote it (`2e6/month` → "2,000,000 a month"). */
export interface Volume {
  runs_per_day: number;
  as_written: string;
}

const perDay = (n: number, unit = 'day'): Volume => ({
  runs_per_day: n * PER_DAY[unit]!,
  as_written: `${n.toLocaleString('en-US', { maximumFractionDigits: 3 })} runs ${unit === 'hour' ? 'an' : 'a'} ${unit}`,
});
export const DEFAULT_VOLUMES: Volume[] = [1_000, 10_000, 100_000].map((n) => perDay(n));

/** `10000/day,5000/hour,2e6/month` (a bare number is per day). */
export function parseVolumes(text: string): Volume[] {
  const out: Volume[] = [];
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^([0-9][0-9_.e+]*)\s*(?:\/\s*([a-z]+))?$/i.exec(part);
    const n = m ? Number(m[1]!.replace(/_/g, '')) : NaN;
    const unit = (m?.[2] ?? 'day').toLowerCase();
    if (!m || !Number.isFinite(n) || n <= 0)
      throw new UsageError(`--volume: '${part}' is not a positive number of runs, like 10000/day`);
    if (!(unit in PER_DAY))
      throw new UsageError(`--volume: '${part}': unit must be one of ${Object.keys(PER_DAY).join(', ')}`);
    out.push(perDay(n, unit));
  }
  if (out.length === 0) throw new UsageError('--volume: no volume given (e.g. 10000/day)');
  return out;
}

export interface VolumeProjection {
  config_id: string;
  scenario: string;
  runs_per_day: number;
  /** The volume as the user wrote it. */
  as_written: string;
  cost_usd_per_day: number;
  cost_usd_per_month: number;
}

export function projectVolumes(summary: readonly ConfigSummary[], volumes: readonly Volume[]): VolumeProjection[] {
  return summary.flatMap((c) =>
    volumes.map((v) => ({
      config_id: c.config_id,
      scenario: c.scenario,
      runs_per_day: v.runs_per_day,
      as_written: v.as_written,
      cost_usd_per_day: c.cost_usd.mean * v.runs_per_day,
      cost_usd_per_month: c.cost_usd.mean * v.runs_per_day * DAYS_PER_MONTH,
    })),
  );
}
