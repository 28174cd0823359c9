// How the gate shows a measured value: money as every report does, counts with separators.
import { usd } from '../report/format/numbers.ts';

export function formatValue(metric: string, v: number): string {
  if (metric === 'cost_usd') return usd(v);
  return Number.isInteger(v) ? v.toLocaleString('en-US') : v.toLocaleString('en-US', { maximumFractionDigits: 1 });
}
