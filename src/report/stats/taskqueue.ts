// Task-queue figures for the reports, from run records alone: queue length and calls per round,
// tokens per role, and what each queue constraint changes when it is switched on.
import type { RunFacts } from '../../contracts/records.ts';
import { configKey } from '../../contracts/settings.ts';
import { max, mean } from './descriptive.ts';
import { groupBy } from '../data/group.ts';

interface RoundExtra {
  round: number;
  queue_length: number;
  calls: number;
  input_tokens: number;
  output_tokens: number;
}
type RoleExtra = Record<string, { calls: number; input_tokens: number; output_tokens: number }>;

const rounds = (r: RunFacts) => (r.extra?.rounds as RoundExtra[] | undefined) ?? [];
const isTaskqueue = (r: RunFacts) => r.agent === 'taskqueue';

export interface RoundRow {
  config_id: string;
  round: number;
  /** Runs that reached this round. */
  runs: number;
  queue_length_mean: number;
  queue_length_max: number;
  calls_mean: number;
  tokens_mean: number;
}

/** Per configuration and round: how long the queue is and what the round cost. Round 0 is the initial queue. */
export function roundRows(runs: readonly RunFacts[]): RoundRow[] {
  const out: RoundRow[] = [];
  for (const [config, g] of groupBy(runs.filter(isTaskqueue), (r) => r.config_id)) {
    const initial = g.map((r) => Number(r.extra?.initial_queue_length ?? 0));
    out.push({
      config_id: config,
      round: 0,
      runs: g.length,
      queue_length_mean: mean(initial),
      queue_length_max: max(initial),
      calls_mean: 0,
      tokens_mean: 0,
    });
    const byRound = groupBy(g.flatMap(rounds), (x) => String(x.round));
    for (const [round, xs] of [...byRound].sort((a, b) => Number(a[0]) - Number(b[0]))) {
      out.push({
        config_id: config,
        round: Number(round),
        runs: xs.length,
        queue_length_mean: mean(xs.map((x) => x.queue_length)),
        queue_length_max: max(xs.map((x) => x.queue_length)),
        calls_mean: mean(xs.map((x) => x.calls)),
        tokens_mean: mean(xs.map((x) => x.input_tokens + x.output_tokens)),
      });
    }
  }
  return out;
}

/**
 * Configurations that differ only in the round limit share their first rounds (the same seeds), so a
 * chart needs only the one with the highest limit of each such group.
 */
export function longestRoundLimit<R extends RunFacts>(runs: readonly R[]): R[] {
  const limit = (r: RunFacts) => r.settings.limits.max_rounds ?? Infinity;
  const rest = (r: RunFacts) => configKey({ ...r.settings, limits: { ...r.settings.limits, max_rounds: null } });
  const top = new Map<string, number>();
  for (const r of runs) top.set(rest(r), Math.max(top.get(rest(r)) ?? -Infinity, limit(r)));
  return runs.filter((r) => limit(r) === top.get(rest(r)));
}

export interface RoleRow {
  config_id: string;
  role: string;
  calls_mean: number;
  input_tokens_mean: number;
  output_tokens_mean: number;
}

/** Per configuration and role: calls and tokens per run (a role a run never called counts as 0). */
export function roleRows(runs: readonly RunFacts[]): RoleRow[] {
  const out: RoleRow[] = [];
  for (const [config, g] of groupBy(runs.filter(isTaskqueue), (r) => r.config_id)) {
    const roles = new Set(g.flatMap((r) => Object.keys((r.extra?.tokens_by_role as RoleExtra | undefined) ?? {})));
    for (const role of roles) {
      const of = (r: RunFacts) =>
        ((r.extra?.tokens_by_role as RoleExtra | undefined) ?? {})[role] ?? {
          calls: 0,
          input_tokens: 0,
          output_tokens: 0,
        };
      out.push({
        config_id: config,
        role,
        calls_mean: mean(g.map((r) => of(r).calls)),
        input_tokens_mean: mean(g.map((r) => of(r).input_tokens)),
        output_tokens_mean: mean(g.map((r) => of(r).output_tokens)),
      });
    }
  }
  return out;
}

export interface ConstraintRow {
  constraint: string;
  value: string;
  /** The configuration with the constraint off (everything else equal). */
  baseline: string;
  config_id: string;
  calls_off: number;
  calls_on: number;
  tokens_off: number;
  tokens_on: number;
  cost_usd_off: number;
  cost_usd_on: number;
  final_queue_off: number;
  final_queue_on: number;
  /** (on − off) / off, in percent. */
  cost_change_pct: number;
}

const OFF = (v: unknown) => v === null || v === false;

/** Each constraint switched on against the same configuration with it off: what it changes. */
export function constraintRows(runs: readonly RunFacts[]): ConstraintRow[] {
  const tq = runs.filter(isTaskqueue);
  const configs = groupBy(tq, (r) => r.config_id);
  const byKey = new Map<string, RunFacts[]>();
  for (const g of configs.values()) byKey.set(configKey(g[0]!.settings), g);
  const avg = (g: RunFacts[], f: (r: RunFacts) => number) => mean(g.map(f));
  const out: ConstraintRow[] = [];
  for (const [config, g] of configs) {
    const s = g[0]!.settings;
    for (const [knob, value] of Object.entries(s.agent)) {
      if (OFF(value) || knob === 'compress_at') continue;
      const base = byKey.get(
        configKey({ ...s, agent: { ...s.agent, [knob]: typeof value === 'boolean' ? false : null } }),
      );
      if (!base) continue;
      const cost = [avg(base, (r) => r.cost_usd), avg(g, (r) => r.cost_usd)] as const;
      out.push({
        constraint: knob,
        value: String(value),
        baseline: base[0]!.config_id,
        config_id: config,
        calls_off: avg(base, (r) => r.calls),
        calls_on: avg(g, (r) => r.calls),
        tokens_off: avg(base, (r) => r.input_tokens + r.output_tokens),
        tokens_on: avg(g, (r) => r.input_tokens + r.output_tokens),
        cost_usd_off: cost[0],
        cost_usd_on: cost[1],
        final_queue_off: avg(base, (r) => Number(r.extra?.final_queue_length ?? 0)),
        final_queue_on: avg(g, (r) => Number(r.extra?.final_queue_length ?? 0)),
        cost_change_pct: cost[0] === 0 ? 0 : ((cost[1] - cost[0]) / cost[0]) * 100,
      });
    }
  }
  return out;
}
