// The ceiling on what one model call may say it used, checked wherever a count comes in from outside
// (an imported trajectory or span, a span posted to the OTLP receiver, an upstream's usage in the
// gateway). No real call comes near it: the largest context windows are a few million tokens. A
// count beyond it is a fault upstream (an overflow, a unit mix-up), and pricing it would turn one bad
// field into a bill of billions; it also keeps every sum of counts an exact integer (far below 2^53).
import { z } from 'zod';

/** The most tokens of one kind (input, output, cached, cache writes, reasoning) one model call may report. */
export const MAX_TOKENS_PER_CALL = 1_000_000_000;
/** The most one model call may say it cost, in USD. */
export const MAX_COST_PER_CALL_USD = 1_000_000;

const int = (n: number) => n.toLocaleString('en-US');

/** A token count as loopbench takes it: a non-negative integer up to MAX_TOKENS_PER_CALL. */
export function isTokenCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= MAX_TOKENS_PER_CALL;
}

/** Why `v` is not a token count (as a phrase after the value), or null when it is one. */
export function countProblem(v: unknown): string | null {
  if (isTokenCount(v)) return null;
  if (typeof v !== 'number' || !Number.isFinite(v)) return 'is not a number';
  if (v < 0) return 'is negative';
  if (!Number.isInteger(v)) return 'is not a whole number';
  return `is over the ceiling of ${int(MAX_TOKENS_PER_CALL)} tokens a call`;
}

/** Why `v` is not a call's cost in USD, or null when it is one. */
export function costProblem(v: unknown): string | null {
  if (typeof v !== 'number' || !Number.isFinite(v)) return 'is not a number';
  if (v < 0) return 'is negative';
  if (v > MAX_COST_PER_CALL_USD) return `is over the ceiling of $${int(MAX_COST_PER_CALL_USD)} a call`;
  return null;
}

/** A call's token count in a zod schema (data files, trajectories): refused past the ceiling with the schema's error path. */
export const TokenCountSchema = z.number().int().nonnegative().max(MAX_TOKENS_PER_CALL);
/** A call's cost in USD in a zod schema. */
export const CallCostSchema = z.number().nonnegative().max(MAX_COST_PER_CALL_USD);
