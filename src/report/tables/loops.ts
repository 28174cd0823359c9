// The reflection and context tables, rendered by html.ts and markdown.ts alike.
import type { ContextRow } from '../stats/context.ts';
import { fitFormula } from '../format/figures.ts';
import { int, pct, times, usd } from '../format/numbers.ts';
import { shownK } from '../findings/loops.ts';
import type { StabilityRow } from '../stats/reflection.ts';
import type { Table } from './tables.ts';

const ratioCell = (x: number | null) => (x === null ? '–' : times(x));

export function reflectionTable(rows: readonly StabilityRow[]): Table {
  // pass^k at k = 1, 5 and N (the most runs any configuration has); every k is in pass-hat-k.csv.
  const ks = shownK(Math.max(0, ...rows.map((r) => r.pass_hat_k.length)));
  return {
    head: [
      'configuration',
      'success',
      ...ks.map((k) => `pass^${k}`),
      'right→wrong',
      'wrong→right',
      'critique calls / run',
      'reopens / run',
      'tokens / run',
      'cost / run',
      'tokens vs off',
      'cost vs off',
    ],
    rows: rows.map((r) => [
      r.config_id,
      r.successes === null ? 'not checked' : `${r.successes}/${r.runs}`,
      ...ks.map((k) => (r.pass_hat_k[k - 1] === undefined ? '–' : r.pass_hat_k[k - 1]!.toFixed(2))),
      String(r.right_to_wrong),
      String(r.wrong_to_right),
      (r.critiques_mean + r.step_critiques_mean).toFixed(1),
      r.reopens_mean.toFixed(1),
      int(r.input_tokens_mean + r.output_tokens_mean),
      usd(r.cost_usd_mean),
      ratioCell(r.tokens_ratio),
      ratioCell(r.cost_ratio),
    ]),
    numeric: Array.from({ length: 9 + ks.length }, (_, i) => i + 2).filter((i) => i > 1),
  };
}

export function contextTable(rows: readonly ContextRow[]): Table {
  return {
    head: [
      'configuration',
      'input tokens / run',
      'saved vs full',
      'cost / run',
      'cost saved',
      'largest prompt',
      'summary calls / run',
      'fit a·N + b·N²',
      'R²',
    ],
    rows: rows.map((r) => [
      r.config_id,
      int(r.input_tokens_mean),
      r.input_tokens_saved === null ? '–' : pct(r.input_tokens_saved),
      usd(r.cost_usd_mean),
      r.cost_saved === null ? '–' : pct(r.cost_saved),
      int(r.max_call_input_tokens),
      r.summaries_mean.toFixed(1),
      r.fit ? fitFormula(r.fit) : '–',
      r.fit ? r.fit.r2.toFixed(3) : '–',
    ]),
    numeric: [1, 2, 3, 4, 5, 6, 8],
  };
}
