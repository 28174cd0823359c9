// Per-configuration summary of run records: what a cost review reads first.
import type { StopReason } from '../brakes/stop-reason.ts';
import type { RunRecord } from '../runner/records.ts';
import type { Settings } from '../runner/settings.ts';
import { spread, type Spread } from './stats.ts';

export interface ConfigSummary {
  config_id: string;
  scenario: string;
  settings: Settings;
  runs: number;
  /** Runs whose answer was checked and passed; null when the scenario has no check. */
  successes: number | null;
  success_rate: number | null;
  stop_reasons: Partial<Record<StopReason, number>>;
  steps: Spread;
  calls: Spread;
  input_tokens: Spread;
  output_tokens: Spread;
  cached_tokens: Spread;
  cost_usd: Spread;
  total_cost_usd: number;
}

const METRICS = ['steps', 'calls', 'input_tokens', 'output_tokens', 'cached_tokens', 'cost_usd'] as const;
type Metric = (typeof METRICS)[number];

interface Group {
  first: RunRecord;
  runs: number;
  checked: number;
  successes: number;
  stop_reasons: Partial<Record<StopReason, number>>;
  values: Record<Metric, number[]>;
}

/**
 * Summarises run records as they stream past, one at a time: it keeps one group per configuration
 * and, per run, only the six numbers the percentiles need, never the records themselves.
 */
export class ConfigAggregator {
  private readonly groups = new Map<string, Group>();

  add(r: RunRecord): void {
    let g = this.groups.get(r.config_id);
    if (!g) {
      const values = Object.fromEntries(METRICS.map((m) => [m, []])) as unknown as Record<Metric, number[]>;
      this.groups.set(r.config_id, (g = { first: r, runs: 0, checked: 0, successes: 0, stop_reasons: {}, values }));
    }
    g.runs++;
    if (r.success !== null) {
      g.checked++;
      if (r.success) g.successes++;
    }
    g.stop_reasons[r.stop_reason] = (g.stop_reasons[r.stop_reason] ?? 0) + 1;
    for (const m of METRICS) g.values[m].push(r[m]);
  }

  summaries(): ConfigSummary[] {
    return [...this.groups.values()].map((g) => {
      const successes = g.checked ? g.successes : null;
      return {
        config_id: g.first.config_id,
        scenario: g.first.scenario,
        settings: g.first.settings,
        runs: g.runs,
        successes,
        success_rate: successes === null ? null : successes / g.checked,
        stop_reasons: g.stop_reasons,
        steps: spread(g.values.steps),
        calls: spread(g.values.calls),
        input_tokens: spread(g.values.input_tokens),
        output_tokens: spread(g.values.output_tokens),
        cached_tokens: spread(g.values.cached_tokens),
        cost_usd: spread(g.values.cost_usd),
        total_cost_usd: g.values.cost_usd.reduce((s, x) => s + x, 0),
      };
    });
  }
}

export function summarizeConfigs(runs: Iterable<RunRecord>): ConfigSummary[] {
  const agg = new ConfigAggregator();
  for (const r of runs) agg.add(r);
  return agg.summaries();
}

/** `done 8, spin 2` */
export function formatStopReasons(c: Pick<ConfigSummary, 'stop_reasons'>): string {
  return Object.entries(c.stop_reasons)
    .sort((a, b) => b[1]! - a[1]!)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
}
