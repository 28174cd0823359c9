// What-if configurations: for each family of configurations that differ only in one limit, the runs of
// the loosest are replayed under each requested value (derive-run.ts) and added as a derived configuration,
// named like a swept one and marked "(derived)". Values the sweep ran for real are not derived.
import type { RunRecord } from '../contracts/records.ts';
import { configKey, type Limits } from '../contracts/settings.ts';
import { DERIVED_MARK, type DerivedRun, type ReplayedStep, type WhatIfOutcome } from '../contracts/derived.ts';
import { groupBy } from '../report/data/group.ts';
import { deriveRun, WHAT_IF_LIMITS, type WhatIfName } from './derive-run.ts';

export interface WhatIfRequest {
  name: WhatIfName;
  values: Array<number | null>;
}

const show = (v: number | null) => (v === null ? 'off' : String(v));
/** `null` (off) is the loosest limit. */
const looser = (a: number | null, b: number | null) => a === null || (b !== null && a > b);

/** `seed-calibrated steps=30` → `seed-calibrated steps=12 (derived)`. */
export function derivedConfigId(source: string, name: WhatIfName, value: number | null): string {
  const token = new RegExp(`(^| )${name}=\\S+`);
  const label = `${name}=${show(value)}`;
  return `${token.test(source) ? source.replace(token, `$1${label}`) : `${source} ${label}`}${DERIVED_MARK}`;
}

/** Derives every requested value from the recorded runs (whole records) and their steps (by run id, in call order). */
export function deriveConfigs(
  records: readonly RunRecord[],
  stepsOf: (runId: string) => readonly ReplayedStep[],
  requests: readonly WhatIfRequest[],
): WhatIfOutcome {
  const out: WhatIfOutcome = { runs: [], refusals: [] };
  for (const { name, values } of requests) {
    const key = WHAT_IF_LIMITS[name];
    const families = groupBy(records, (r) => configKey({ ...r.settings, limits: { ...r.settings.limits, [key]: 0 } }));
    for (const family of families.values()) {
      const configs = groupBy(family, (r) => r.config_id);
      const ran = new Set(family.map((r) => r.settings.limits[key]));
      const source = [...configs.values()].reduce((m, c) =>
        looser(c[0]!.settings.limits[key], m[0]!.settings.limits[key]) ? c : m,
      );
      for (const value of values) {
        if (ran.has(value)) continue;
        const id = derivedConfigId(source[0]!.config_id, name, value);
        const limits: Limits = { ...source[0]!.settings.limits, [key]: value };
        const derived: DerivedRun[] = [];
        for (const r of source) {
          const d = deriveRun(r, stepsOf(r.run_id), limits, id);
          if (!d.ok) {
            out.refusals.push(`what-if ${name}=${show(value)} from ${source[0]!.config_id} refused: ${d.reason}.`);
            break;
          }
          derived.push(d.run);
        }
        if (derived.length === source.length) out.runs.push(...derived);
      }
    }
  }
  return out;
}
