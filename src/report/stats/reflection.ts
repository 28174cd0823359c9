// What reflection costs and what it buys, per configuration, across --repeat N runs: success share,
// pass^k (τ-bench: all k of k trials succeed), how often reflection turned a right first answer
// wrong and a wrong one right, and tokens and cost against the same configuration without reflection.
import type { ReflectionRecord, RunFacts } from '../../contracts/records.ts';
import { configKey, type ConfigSettings } from '../../contracts/settings.ts';
import { groupByConfig } from './aggregate.ts';
import { mean } from './descriptive.ts';

/** C(c,k)/C(n,k): the chance that k of the n runs, drawn without replacement, all succeeded (c succeeded). */
export function passHatK(c: number, n: number, k: number): number {
  if (k < 1 || k > n) return NaN;
  let p = 1;
  for (let i = 0; i < k; i++) p *= (c - i) / (n - i);
  return Math.max(0, p);
}

export interface StabilityRow {
  config_id: string;
  scenario: string;
  reflection: string;
  runs: number;
  /** Runs whose final answer was checked (null counts when the scenario has no check). */
  successes: number | null;
  success_rate: number | null;
  /** pass^k for k = 1..runs (index k−1); empty when unchecked. */
  pass_hat_k: number[];
  /** Runs whose first answer passed the check, before any critique. */
  first_correct: number | null;
  /** Runs whose first answer was right and whose final outcome was not, and the reverse. */
  right_to_wrong: number;
  wrong_to_right: number;
  critiques_mean: number;
  step_critiques_mean: number;
  reopens_mean: number;
  calls_mean: number;
  input_tokens_mean: number;
  output_tokens_mean: number;
  cost_usd_mean: number;
  /** Against the same configuration with reflection off (null when that was not swept). */
  baseline_config: string | null;
  tokens_ratio: number | null;
  cost_ratio: number | null;
}

const reflectionOf = (r: RunFacts) => r.extra?.reflection as ReflectionRecord | undefined;

/** Configurations equal but for `omit` (and the per-run seed and repeat) share a key. */
export function settingsKey(s: ConfigSettings, omit: keyof ConfigSettings, value: unknown): string {
  return configKey({ ...s, [omit]: value });
}

export function stabilityRows(runs: readonly RunFacts[]): StabilityRow[] {
  const groups = groupByConfig(runs);
  const offCost = new Map<string, { config: string; tokens: number; cost: number }>();
  for (const g of groups) {
    const s = g[0]!.settings;
    if (s.reflection === 'off')
      offCost.set(settingsKey(s, 'reflection', 'off'), {
        config: g[0]!.config_id,
        tokens: mean(g.map(tokens)),
        cost: mean(g.map((r) => r.cost_usd)),
      });
  }
  return groups.map((g) => {
    const first = g[0]!;
    const checked = g.filter((r) => r.success !== null);
    const successes = checked.length ? checked.filter((r) => r.success).length : null;
    const firsts = g.map((r) => reflectionOf(r)?.answers[0] ?? null);
    const known = g.filter((_, i) => firsts[i] !== null && g[i]!.success !== null);
    const changed = (from: boolean) => g.filter((r, i) => firsts[i] === from && r.success === !from).length;
    const off = offCost.get(settingsKey(first.settings, 'reflection', 'off'));
    const t = mean(g.map(tokens));
    const c = mean(g.map((r) => r.cost_usd));
    const per = (f: (x: ReflectionRecord) => number) =>
      mean(
        g.map((r) => {
          const x = reflectionOf(r);
          return x ? f(x) : 0;
        }),
      );
    return {
      config_id: first.config_id,
      scenario: first.scenario,
      reflection: first.settings.reflection,
      runs: g.length,
      successes,
      success_rate: successes === null ? null : successes / checked.length,
      pass_hat_k: successes === null ? [] : checked.map((_, i) => passHatK(successes, checked.length, i + 1)),
      first_correct: known.length ? firsts.filter((x) => x === true).length : null,
      right_to_wrong: changed(true),
      wrong_to_right: changed(false),
      critiques_mean: per((x) => x.critiques),
      step_critiques_mean: per((x) => x.step_critiques),
      reopens_mean: per((x) => x.reopens),
      calls_mean: mean(g.map((r) => r.calls)),
      input_tokens_mean: mean(g.map((r) => r.input_tokens)),
      output_tokens_mean: mean(g.map((r) => r.output_tokens)),
      cost_usd_mean: c,
      baseline_config: off && off.config !== first.config_id ? off.config : null,
      tokens_ratio: off && off.tokens > 0 ? t / off.tokens : null,
      cost_ratio: off && off.cost > 0 ? c / off.cost : null,
    };
  });
}

const tokens = (r: RunFacts) => r.input_tokens + r.output_tokens;
