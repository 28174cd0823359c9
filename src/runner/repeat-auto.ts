// `bench run --repeat auto[:MIN..MAX:BATCH] [--precision P]`: the flags, and the batches the runner
// takes until every configuration is estimated precisely enough (report/stats/precision.ts holds the rule).
import { UsageError } from '../contracts/errors.ts';
import type { AdaptiveSampling } from '../contracts/sweep-state.ts';
import type { RunRecord } from '../contracts/records.ts';
import {
  DEFAULT_PRECISION,
  PRECISION_CONFIDENCE,
  precisionSampling,
  type SampledRun,
} from '../report/stats/precision.ts';
import type { SweepOptions } from './sweep-runner.ts';
import { expandSweep, type SweepSpec } from './sweep.ts';

export const REPEAT_AUTO = { min: 10, max: 100, batch: 10 };
const MAX_REPEAT = 100_000;
const AUTO_ACCEPTED = `(accepted: a whole number ≥ 1 and ≤ ${MAX_REPEAT}, auto, or auto:MIN..MAX:BATCH with 2 ≤ MIN ≤ MAX ≤ ${MAX_REPEAT} and BATCH ≥ 1, e.g. auto:20..200:20)`;
const PRECISION_ACCEPTED = '(accepted: a fraction above 0 and at most 1 like 0.05, or a percentage like 5%)';

/** `--repeat auto…` as a design; null for a fixed count (buildSweepSpec parses that). */
export function parseRepeatAuto(repeat: string, precision: string | undefined): AdaptiveSampling | null {
  if (!/^\s*auto\b/.test(repeat)) {
    if (precision !== undefined)
      throw new UsageError(
        '--precision: only with --repeat auto (a fixed --repeat runs every repeat whatever the precision)',
      );
    return null;
  }
  const m = /^\s*auto(?::(\d+)\.\.(\d+)(?::(\d+))?)?\s*$/.exec(repeat);
  if (!m) throw new UsageError(`--repeat: '${repeat}' is not auto or auto:MIN..MAX:BATCH ${AUTO_ACCEPTED}`);
  const min = m[1] === undefined ? REPEAT_AUTO.min : Number(m[1]);
  const max = m[2] === undefined ? REPEAT_AUTO.max : Number(m[2]);
  const batch = m[3] === undefined ? REPEAT_AUTO.batch : Number(m[3]);
  // An interval on a mean needs the spread of two runs.
  if (min < 2)
    throw new UsageError(
      `--repeat: '${repeat}': MIN ${min} is below 2, the fewest runs an interval can be taken on ${AUTO_ACCEPTED}`,
    );
  if (max < min) throw new UsageError(`--repeat: '${repeat}': MAX ${max} is below MIN ${min} ${AUTO_ACCEPTED}`);
  if (max > MAX_REPEAT)
    throw new UsageError(`--repeat: '${repeat}': MAX ${max} is above ${MAX_REPEAT} ${AUTO_ACCEPTED}`);
  if (batch < 1) throw new UsageError(`--repeat: '${repeat}': BATCH must be at least 1 ${AUTO_ACCEPTED}`);
  return {
    min,
    max,
    batch,
    confidence: PRECISION_CONFIDENCE,
    rule: 'precision',
    precision: precision === undefined ? DEFAULT_PRECISION : parsePrecision(precision),
  };
}

function parsePrecision(text: string): number {
  const t = text.trim();
  const percent = t.endsWith('%');
  const body = percent ? t.slice(0, -1).trim() : t;
  const v = Number(body) / (percent ? 100 : 1);
  if (body === '' || !Number.isFinite(v) || v <= 0 || v > 1)
    throw new UsageError(`--precision: '${text}' is not a precision ${PRECISION_ACCEPTED}`);
  return v;
}

const sampled = (r: RunRecord): SampledRun => ({
  config_id: r.config_id,
  repeat: r.settings.repeat,
  cost_usd: r.cost_usd,
  success: r.success,
  stop_reason: r.stop_reason,
});

/**
 * The sweep options of `--repeat auto`: every repeat up to max planned (spec.repeat is max), and for
 * each configuration not yet precise enough, its repeats up to its next look (empty: all stopped).
 */
export function precisionSweep(spec: SweepSpec, sampling: AdaptiveSampling): NonNullable<SweepOptions['adaptive']> {
  const all = expandSweep(spec);
  const next = (finished: readonly RunRecord[]) => {
    const own = new Map<string, SampledRun[]>(all.map((p) => [p.configId, []]));
    for (const r of finished) own.get(r.config_id)?.push(sampled(r));
    const window = new Map<string, { from: number; to: number }>();
    for (const [id, runs] of own) {
      const s = precisionSampling(id, runs, sampling);
      if ('nextLook' in s) window.set(id, { from: runs.length, to: s.nextLook });
    }
    return all.filter((p) => {
      const w = window.get(p.configId);
      return w !== undefined && p.settings.repeat >= w.from && p.settings.repeat < w.to;
    });
  };
  return { sampling, next };
}
