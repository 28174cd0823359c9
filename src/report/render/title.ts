// The report's title: the question the sweep answers and its answer, from the same figures as the
// decision it opens with (the step-limit families of decision.ts, their mean cost per run), so a
// reader of the browser tab or the page's first line knows the result before reading further.
import type { ConfigSummary } from '../stats/aggregate.ts';
import { stepLimitFamilies } from '../stats/step-limits.ts';
import type { Recommendation } from '../findings/decision.ts';
import { isDerived } from '../../contracts/derived.ts';
import { times, usdDistinct } from '../format/numbers.ts';
import { differingSettings } from '../findings/settings-diff.ts';

export interface ReportTitle {
  question: string;
  answer: string;
}

/** Families (or configurations) the title names one by one; more are counted, or given as a range. */
const NAMED_FAMILIES = 3;

const limit = (c: ConfigSummary) => `${c.settings.limits.max_steps}${isDerived(c.config_id) ? ' (what-if)' : ''}`;

/** `×5.78 per run ($0.0074 → $0.043)`, or `the same per run ($0.00028)` when the means print alike. */
function costChange(lo: ConfigSummary, hi: ConfigSummary): string {
  const money = usdDistinct([lo.cost_usd.mean, hi.cost_usd.mean]);
  const [a, b] = [money(lo.cost_usd.mean), money(hi.cost_usd.mean)];
  if (a === b) return `the same per run (${a})`;
  return `${times(hi.cost_usd.mean / lo.cost_usd.mean)} per run (${a} → ${b})`;
}

export function reportTitle(
  summary: readonly ConfigSummary[],
  recommendations: readonly Recommendation[],
): ReportTitle {
  const families = stepLimitFamilies(summary);
  if (families.length > 0) {
    const ranges = new Set(families.map((f) => `${limit(f[0]!)} → ${limit(f[f.length - 1]!)}`));
    const one = ranges.size === 1 ? [...ranges][0]! : null;
    const scenarios = new Set(families.map((f) => f[0]!.scenario));
    const parts = families.slice(0, NAMED_FAMILIES).map((f) => {
      const [lo, hi] = [f[0]!, f[f.length - 1]!];
      const siblings = families.filter((g) => g !== f && g[0]!.scenario === lo.scenario);
      const label = siblings.length
        ? differingSettings(
            lo.settings,
            siblings.map((g) => g[0]!.settings),
          )
        : '';
      const name =
        families.length > 1
          ? `${lo.scenario}${label ? ` (${label})` : ''}: `
          : scenarios.size > 1
            ? `${lo.scenario}: `
            : '';
      const rec = recommendations.find((r) => r.config_id !== null && f.some((c) => c.config_id === r.config_id));
      const range = one ? '' : `MAX_STEPS ${limit(lo)} → ${limit(hi)}: `;
      // Where success is checked and the two ends differ in it, the answer says so: cost alone would read as the whole trade.
      const success =
        lo.successes !== null && hi.successes !== null && (lo.successes !== hi.successes || lo.runs !== hi.runs)
          ? `, success ${lo.successes}/${lo.runs} → ${hi.successes}/${hi.runs}`
          : '';
      return `${name}${range}${costChange(lo, hi)}${success}${rec ? `, recommended MAX_STEPS ${rec.max_steps}` : ''}`;
    });
    const more = families.length > NAMED_FAMILIES ? `; ${families.length - NAMED_FAMILIES} more below` : '';
    return {
      question: one ? `What does MAX_STEPS ${one} cost?` : 'What do the step limits swept cost?',
      answer: `${parts.join('; ')}${more}`,
    };
  }
  if (summary.length === 0) return { question: 'What did these agent loops cost?', answer: 'no run was recorded' };
  const success = (c: ConfigSummary) => (c.successes === null ? '' : `, ${c.successes}/${c.runs} succeeded`);
  if (summary.length <= NAMED_FAMILIES) {
    const names = summary.map((c) => c.config_id);
    const listed = names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
    const money = usdDistinct(summary.map((c) => c.cost_usd.mean));
    const each = summary.map(
      (c) => `${summary.length > 1 ? `${c.config_id}: ` : ''}${money(c.cost_usd.mean)} per run${success(c)}`,
    );
    return { question: `What ${names.length === 1 ? 'does' : 'do'} ${listed} cost?`, answer: each.join('; ') };
  }
  const byCost = [...summary].sort((a, b) => a.cost_usd.mean - b.cost_usd.mean);
  const [lo, hi] = [byCost[0]!, byCost[byCost.length - 1]!];
  const money = usdDistinct([lo.cost_usd.mean, hi.cost_usd.mean]);
  return {
    question: `What do these ${summary.length} configurations cost?`,
    answer: `from ${money(lo.cost_usd.mean)} per run (${lo.config_id}) to ${money(hi.cost_usd.mean)} (${hi.config_id})`,
  };
}

/** The title as one line: the browser tab's text. */
export const titleText = (t: ReportTitle) => `${t.question} ${t.answer}`;
