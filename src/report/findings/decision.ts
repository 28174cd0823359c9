// The decision a cost review makes, made explicit: which MAX_STEPS to pick among the limits swept, from
// what each configuration costs per successful task (economics.ts) — by a printed rule, with the saving
// at the chosen volume, or with what to run next when the sweep cannot tell.
import type { ConfigSummary } from '../stats/aggregate.ts';
import { proportionDifference } from '../stats/intervals.ts';
import { stepLimitFamilies } from '../stats/step-limits.ts';
import type { ConfigEconomics } from '../stats/economics.ts';
import { differingSettings } from './settings-diff.ts';
import { pct, times, usd, usdDistinct } from '../format/numbers.ts';
import { DAYS_PER_MONTH, type Volume } from '../stats/volume.ts';
import { isDerived } from '../../contracts/derived.ts';
import { preemption } from './stops.ts';

export const RULE_CHECKED =
  'the cheapest limit per successful task whose success rate is not significantly below the best limit’s (the 95% interval of the difference in success rates includes 0)';
export const RULE_UNCHECKED =
  'none without a check: success is not measured, and by cost per run alone the lowest limit always wins';
export const RULE_NO_RESULT =
  'none without a result: every run ended in an error, so the sweep measured nothing to choose by';

export interface Recommendation {
  scenario: string;
  /** The settings this family shares that other families of the scenario do not (empty with one family). */
  family: string;
  /** The limit recommended; null when the scenario checks no answer (nothing to weigh cost against). */
  max_steps: number | null;
  config_id: string | null;
  rule: string;
  highest_steps: number;
  /** Against the highest limit swept, at the volume below (null with no recommendation). */
  saving_usd_per_month: number | null;
  volume: Volume;
  /** What to run next when the sweep cannot settle the choice (null when it can). */
  next: string | null;
  sentence: string;
}

export function recommendLimits(
  summary: readonly ConfigSummary[],
  economics: readonly ConfigEconomics[],
  volume: Volume,
): Recommendation[] {
  const out: Recommendation[] = [];
  const families = stepLimitFamilies(summary);
  for (const family of families) {
    const scenario = family[0]!.scenario;
    const siblings = families.filter((f) => f[0]!.scenario === scenario);
    const family_ =
      siblings.length > 1
        ? differingSettings(
            family[0]!.settings,
            siblings.filter((f) => f !== family).map((f) => f[0]!.settings),
          )
        : '';
    const econ = (c: ConfigSummary) => economics.find((e) => e.config_id === c.config_id)!;
    const top = family[family.length - 1]!;
    const at = family_ ? ` (${family_})` : '';
    if (family.every((c) => c.stop_reasons.error === c.runs)) {
      out.push(withoutResult(family, `${scenario}${at}`, family_, volume));
      continue;
    }
    if (!family.every((c) => c.successes !== null)) {
      out.push(withoutCheck(family, `${scenario}${at}`, family_, volume));
      continue;
    }
    let next: string | null = null;
    const best = [...family].sort((x, y) => y.success_rate! - x.success_rate! || x.cost_usd.mean - y.cost_usd.mean)[0]!;
    // best − c, with Newcombe's interval (from the two Wilson intervals): sound at 10 runs and at 0% or 100%.
    const diff = (c: ConfigSummary) => proportionDifference(c.successes!, c.checked, best.successes!, best.checked).ci;
    const eligible = family.filter((c) => diff(c).lo <= 0);
    const allFailed = best.successes === 0;
    const pick = allFailed
      ? family.reduce((m, c) => (c.cost_usd.mean < m.cost_usd.mean ? c : m))
      : eligible.reduce((m, c) => (econ(c).cost_per_success! < econ(m).cost_per_success! ? c : m));
    const d = diff(pick);
    const perSuccess = `${usd(econ(pick).cost_per_success!)} per successful task`;
    const why = allFailed
      ? `no run succeeded at any limit (0 of ${family.reduce((s, c) => s + c.runs, 0)}), so only cost per run tells the limits apart`
      : pick === best
        ? `${perSuccess}, success ${pick.successes}/${pick.runs}, the best of the limits swept`
        : `${perSuccess}, success ${pick.successes}/${pick.runs} against ${best.successes}/${best.runs} at the best limit (${best.settings.limits.max_steps}; difference ${signedPoints(-d.hi)} to ${signedPoints(-d.lo)} points)`;
    if (allFailed) next = 'check the scenario: more steps did not make any run succeed';
    else if (pick !== best && d.hi > 0.2)
      next = `the interval allows losing up to ${pct(d.hi)} of success: run --repeat ${pick.runs * 4} to halve it`;
    else if (pick === family[0] && !pick.stop_reasons.max_steps && pick.steps.max < pick.settings.limits.max_steps!)
      next = `every run finished by step ${pick.steps.max}, below the lowest limit swept: a tighter limit costs the same until it cuts runs off — try --steps ${pick.steps.max}..${pick.settings.limits.max_steps! - 1}`;
    else if (pick === family[0] && pick.stop_reasons.max_steps)
      next = `the lowest limit swept was picked and stopped runs: try lower limits, e.g. --steps ${lowerRange(pick.settings.limits.max_steps!)}`;
    else {
      const below = family[family.indexOf(pick) - 1];
      if (below && below.settings.limits.max_steps! + 1 < pick.settings.limits.max_steps!)
        next = `a finer --steps ${below.settings.limits.max_steps}..${pick.settings.limits.max_steps} between the last limit that lost success and this one may find a cheaper limit`;
    }
    const steps = pick.settings.limits.max_steps!;
    const saving = (top.cost_usd.mean - pick.cost_usd.mean) * volume.runs_per_day * DAYS_PER_MONTH;
    const rule = RULE_CHECKED;
    const saves =
      pick === top
        ? 'it is the highest limit swept, so it saves nothing against it'
        : saving === 0
          ? `it costs the same as steps=${top.settings.limits.max_steps} (no run took more steps there)`
          : `against steps=${top.settings.limits.max_steps} it saves ${usd(saving)} a month at ${volume.as_written}`;
    out.push({
      scenario,
      family: family_,
      max_steps: steps,
      config_id: pick.config_id,
      rule,
      highest_steps: top.settings.limits.max_steps!,
      saving_usd_per_month: saving,
      volume,
      next,
      sentence: `${scenario}${at}: recommended MAX_STEPS ${steps}${isDerived(pick.config_id) ? ' (derived from recorded runs: a what-if)' : ''} — ${why}; ${saves}${pick === top ? cutBy(pick) : cutBy(pick, top)}. Rule: ${rule}.${next ? ` Next: ${next}.` : ''}`,
    });
  }
  return out;
}

/**
 * A family whose scenario checks no answer: nothing to weigh cost against, so no limit is recommended. Its
 * line leads with what the sweep does show — steps taken ×k → input tokens ×r from the lowest limit to the
 * highest, and the cost per run at each — and says what the recommendation needs.
 */
function withoutCheck(
  family: readonly ConfigSummary[],
  name: string,
  familyLabel: string,
  volume: Volume,
): Recommendation {
  const [lo, hi] = [family[0]!, family[family.length - 1]!];
  const limit = (c: ConfigSummary) => `${c.settings.limits.max_steps}${isDerived(c.config_id) ? ' (derived)' : ''}`;
  const ratio = (a: number, b: number) => times(a > 0 ? b / a : NaN);
  const money = usdDistinct([lo.cost_usd.mean, hi.cost_usd.mean]);
  const next = 'add a check to the scenario (check: in its YAML) to choose by cost per successful task';
  return {
    scenario: lo.scenario,
    family: familyLabel,
    max_steps: null,
    config_id: null,
    rule: RULE_UNCHECKED,
    highest_steps: hi.settings.limits.max_steps!,
    saving_usd_per_month: null,
    volume,
    next,
    sentence:
      `${name}: MAX_STEPS ${limit(lo)} → ${limit(hi)}: steps taken ${ratio(lo.steps.mean, hi.steps.mean)} (${lo.steps.mean.toFixed(1)} → ${hi.steps.mean.toFixed(1)}) → input tokens ${ratio(lo.input_tokens.mean, hi.input_tokens.mean)}, ` +
      `${money(lo.cost_usd.mean)} → ${money(hi.cost_usd.mean)} per run${cutBy(lo, hi)}. No MAX_STEPS is recommended: the scenario checks no answer, so success is not measured and by cost alone the lowest limit always wins. Next: ${next}.`,
  };
}

/** The brakes other than the step limit that cut these configurations' runs, each said once: a limit they never reached is not what decided. */
const cutBy = (...configs: ConfigSummary[]) => configs.map(preemption).join('');

/** A family whose every run ended in an error: what it cost and how far it got measure the error, not the loop. */
function withoutResult(
  family: readonly ConfigSummary[],
  name: string,
  familyLabel: string,
  volume: Volume,
): Recommendation {
  const runs = family.reduce((s, c) => s + c.runs, 0);
  const next =
    'fix the error (bench prints the first on stderr; each run has its own in runs.jsonl, stop_detail) and run the sweep again';
  return {
    scenario: family[0]!.scenario,
    family: familyLabel,
    max_steps: null,
    config_id: null,
    rule: RULE_NO_RESULT,
    highest_steps: family[family.length - 1]!.settings.limits.max_steps!,
    saving_usd_per_month: null,
    volume,
    next,
    sentence: `${name}: no MAX_STEPS is recommended: ${runs === 1 ? 'its one run' : `all ${runs} runs`} ended in an error, so the sweep measured no loop. Next: ${next}.`,
  };
}

const signedPoints = (x: number) => `${x < 0 ? '−' : '+'}${Math.abs(Math.round(x * 100))}`;

/** Below a limit, halving it in about five steps: 12 → 6..11:1. */
function lowerRange(limit: number): string {
  const lo = Math.max(1, Math.floor(limit / 2));
  const step = Math.max(1, Math.round((limit - 1 - lo) / 5));
  return lo >= limit - 1 ? String(Math.max(1, limit - 1)) : `${lo}..${limit - 1}:${step}`;
}
