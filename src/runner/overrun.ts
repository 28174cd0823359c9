// A model that returns more output than max_tokens breaks the budget brake's worst case: say so in
// the run's stop detail, whatever stopped it, so the record never reads as if the limits held.
import type { OutputOverrun } from '../agents/caller.ts';

const int = (n: number) => n.toLocaleString('en-US');

export function overrunDetail(o: OutputOverrun, costUsd: number, budgetUsd: number | null): string {
  const over =
    budgetUsd !== null && costUsd > budgetUsd ? `; budget $${budgetUsd} exceeded: spent $${costUsd.toFixed(4)}` : '';
  return (
    `model ignored max_tokens: ${o.calls} call(s) returned more than ${int(o.max_output_tokens)} output tokens ` +
    `(first at step ${o.first_step}, largest ${int(o.largest_output_tokens)}; ${int(o.tokens)} tokens, $${o.cost_usd.toFixed(4)} beyond the worst case)${over}`
  );
}
