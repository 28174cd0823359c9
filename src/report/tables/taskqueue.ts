// The task-queue section's tables, rendered by html.ts and markdown.ts alike.
import { int, signed, usd } from '../format/numbers.ts';
import type { Table } from './tables.ts';
import type { ConstraintRow, RoleRow, RoundRow } from '../stats/taskqueue.ts';

const one = (x: number) => (Math.round(x * 10) / 10).toString();
const change = (off: number, on: number) => (off === 0 ? '' : ` (${signed(((on - off) / off) * 100)}%)`);

export function constraintTable(rows: readonly ConstraintRow[]): Table {
  return {
    head: [
      'constraint',
      'configuration with it on',
      'calls off → on',
      'tokens off → on',
      'cost off → on',
      'final queue off → on',
    ],
    rows: rows.map((r) => [
      `${r.constraint} ${r.value}`,
      r.config_id,
      `${one(r.calls_off)} → ${one(r.calls_on)}`,
      `${int(r.tokens_off)} → ${int(r.tokens_on)}${change(r.tokens_off, r.tokens_on)}`,
      `${usd(r.cost_usd_off)} → ${usd(r.cost_usd_on)}${change(r.cost_usd_off, r.cost_usd_on)}`,
      `${one(r.final_queue_off)} → ${one(r.final_queue_on)}`,
    ]),
    numeric: [2, 3, 4, 5],
  };
}

export function roleTable(rows: readonly RoleRow[]): Table {
  return {
    head: ['configuration', 'role', 'calls', 'input tokens', 'output tokens'],
    rows: rows.map((r) => [
      r.config_id,
      r.role,
      one(r.calls_mean),
      int(r.input_tokens_mean),
      int(r.output_tokens_mean),
    ]),
    numeric: [2, 3, 4],
  };
}

/** Queue length after each round, one row per configuration (means over the runs that reached the round). */
export function queueTable(rows: readonly RoundRow[]): Table {
  const rounds = [...new Set(rows.map((r) => r.round))].sort((a, b) => a - b);
  const configs = [...new Set(rows.map((r) => r.config_id))];
  const at = new Map(rows.map((r) => [`${r.config_id}\u0000${r.round}`, r]));
  return {
    head: ['configuration', ...rounds.map((n) => `r${n}`)],
    rows: configs.map((c) => [
      c,
      ...rounds.map((n) => {
        const r = at.get(`${c}\u0000${n}`);
        return r ? one(r.queue_length_mean) : '';
      }),
    ]),
    numeric: rounds.map((_, i) => i + 1),
  };
}
