// The reflection and context findings in plain sentences, for the terminal, summary.md and the HTML report.
import type { ContextRow } from '../stats/context.ts';
import { fitFormula } from '../format/figures.ts';
import { int, pct, times, usd } from '../format/numbers.ts';
import type { StabilityRow } from '../stats/reflection.ts';

/** The k values worth printing for N runs: 1, 5 (when N ≥ 5) and N. */
export function shownK(n: number): number[] {
  return [...new Set([1, Math.min(5, n), n])].filter((k) => k >= 1 && k <= n);
}

export function passText(r: StabilityRow): string {
  return shownK(r.pass_hat_k.length)
    .map((k) => `pass^${k} ${r.pass_hat_k[k - 1]!.toFixed(2)}`)
    .join(', ');
}

const one = (x: number) => x.toFixed(1);

export function reflectionFindings(rows: readonly StabilityRow[]): string[] {
  if (!rows.some((r) => r.reflection !== 'off')) return [];
  return rows.map((r) => {
    const head = `${r.config_id}: ${r.successes === null ? 'no check' : `success ${r.successes}/${r.runs} (${passText(r)})`}`;
    if (r.reflection === 'off')
      return `${head}; ${usd(r.cost_usd_mean)} and ${int(r.input_tokens_mean + r.output_tokens_mean)} tokens per run.`;
    const vs =
      r.cost_ratio !== null && r.tokens_ratio !== null
        ? ` — ${times(r.tokens_ratio)} the tokens and ${times(r.cost_ratio)} the cost of reflection off`
        : '';
    const changes =
      r.first_correct === null
        ? ''
        : `; critique turned ${r.right_to_wrong} right first answer(s) wrong and ${r.wrong_to_right} wrong one(s) right`;
    return `${head}; ${usd(r.cost_usd_mean)} per run${vs}${changes}; ${one(r.critiques_mean + r.step_critiques_mean)} critique call(s) and ${one(r.reopens_mean)} reopen(s) per run.`;
  });
}

export function contextFindings(rows: readonly ContextRow[]): string[] {
  if (!rows.some((r) => r.context !== 'full')) return [];
  return rows.map((r) => {
    const fit = r.fit ? `; cumulative input ≈ ${fitFormula(r.fit)} (R² ${r.fit.r2.toFixed(3)})` : '';
    const size = `${int(r.input_tokens_mean)} input tokens and ${usd(r.cost_usd_mean)} per run, largest prompt ${int(r.max_call_input_tokens)} tokens`;
    const summaries = r.summaries_mean > 0 ? `, ${one(r.summaries_mean)} summary call(s) per run` : '';
    if (r.input_tokens_saved === null || r.cost_saved === null) return `${r.config_id}: ${size}${summaries}${fit}.`;
    const more = (x: number) => (x >= 0 ? `saves ${pct(x)}` : `costs ${pct(-x)} more`);
    return `${r.config_id}: ${more(r.input_tokens_saved)} of the input tokens and ${more(r.cost_saved)} of the cost against full context — ${size}${summaries}${fit}.`;
  });
}
