// The spend tables of imported logs (per day, per model), rendered by html.ts and markdown.ts alike.
import { int, usd, usdDistinct } from '../format/numbers.ts';
import { totalOf, type Spend, type SpendSums } from '../stats/spend.ts';
import type { Table } from './tables.ts';

/** The most recent days the tables show; spend_by_day.csv has them all. */
export const MAX_DAY_ROWS = 31;

const FIGURES = ['calls', 'input tokens', 'cache reads', 'cache writes', 'output tokens', 'reasoning', 'cost'];

function figures(s: SpendSums, money: (x: number) => string): string[] {
  return [
    int(s.calls),
    int(s.input_tokens),
    int(s.cached_tokens),
    int(s.cache_write_tokens),
    int(s.output_tokens),
    int(s.reasoning_tokens),
    money(s.cost_usd),
  ];
}

/** A table of named rows and their total over every row (shown or not). */
function spendTable(head: string[], rows: Array<[string[], SpendSums]>, all: readonly SpendSums[]): Table {
  const total = totalOf(all);
  const money = usdDistinct(rows.map(([, s]) => s.cost_usd));
  const blank = head.slice(1).map(() => '');
  return {
    head: [...head, ...FIGURES],
    rows: [...rows.map(([names, s]) => [...names, ...figures(s, money)]), ['total', ...blank, ...figures(total, usd)]],
    numeric: FIGURES.map((_, i) => head.length + i),
  };
}

/** The last MAX_DAY_ROWS days (each call on the day of its own time), with the total of them all. */
export function dayTable(spend: Spend): Table {
  const shown = spend.days.slice(-MAX_DAY_ROWS);
  return spendTable(
    [`day (${spend.timezone})`, 'models'],
    shown.map((d) => [[d.day, d.models], d]),
    spend.days,
  );
}

export function modelTable(spend: Spend): Table {
  return spendTable(
    ['model'],
    spend.models.map((m) => [[m.model], m]),
    spend.models,
  );
}

/** What the tables hold, for the note under them. */
export function spendNote(spend: Spend): string {
  const cut =
    spend.days.length > MAX_DAY_ROWS ? ` The last ${MAX_DAY_ROWS} of ${spend.days.length} days are shown.` : '';
  return `The calls that carry their own time (imported session logs and traces), each on the day of its time in ${spend.timezone} and under its own model (its run's where the record names none); input tokens include cache reads and writes.${cut} Per day: spend_by_day.csv; per model: spend_by_model.csv; per session: runs.csv (one run per session).`;
}
