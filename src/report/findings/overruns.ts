// Runs whose model returned more output than max_tokens (recorded as extra.output_overrun): the
// budget brake's worst case did not hold for them, and the summary must say so — in the report's prices:
// a re-priced report bills the excess at the re-priced model's rates (reprice.ts overrunAt, from the steps).
import type { RunFacts } from '../../contracts/records.ts';
import { int, usd } from '../format/numbers.ts';
import { groupBy } from '../data/group.ts';

interface Overrun {
  calls: number;
  tokens: number;
  cost_usd: number;
  max_output_tokens: number;
}

const overrunOf = (r: RunFacts) => r.extra?.output_overrun as Overrun | undefined;

/**
 * `repriced`: a run's overrun cost at the report's price, where it is re-priced (undefined: without the run's
 * steps, the cost as recorded stands).
 */
export function overrunFindings(runs: readonly RunFacts[], repriced?: (r: RunFacts) => number | undefined): string[] {
  const out: string[] = [];
  for (const [config, group] of groupBy(runs, (r) => r.config_id)) {
    const hit = group.filter((r) => overrunOf(r));
    if (hit.length === 0) continue;
    const o = hit.map((r) => {
      const recorded = overrunOf(r)!;
      return { ...recorded, cost_usd: repriced?.(r) ?? recorded.cost_usd };
    });
    const sum = (f: (x: Overrun) => number) => o.reduce((a, x) => a + f(x), 0);
    const budget = group[0]!.settings.limits.max_cost_usd;
    const over = budget === null ? [] : hit.filter((r) => r.cost_usd > budget);
    const exceeded = over.length
      ? `; ${over.length} run(s) exceeded the ${usd(budget!)} budget (up to ${usd(Math.max(...over.map((r) => r.cost_usd)))})`
      : '';
    out.push(
      `${config}: the model ignored max_tokens in ${hit.length} of ${group.length} runs — ${int(sum((x) => x.calls))} call(s) returned more than ${int(o[0]!.max_output_tokens)} output tokens ` +
        `(${int(sum((x) => x.tokens))} tokens, ${usd(sum((x) => x.cost_usd))} beyond the budget brake's worst case)${exceeded}; budgets hold only for models that honour max_tokens.`,
    );
  }
  return out;
}
