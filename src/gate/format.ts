// How the gate shows money and counts to people.

/** Dollars with three significant digits, however small: $0.02, $0.000312. */
export function usd(v: number): string {
  const text = v === 0 ? '0' : v >= 1 ? v.toFixed(2) : v.toFixed(Math.max(2, 2 - Math.floor(Math.log10(v))));
  return `$${text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text}`;
}

export function formatValue(metric: string, v: number): string {
  if (metric === 'cost_usd') return usd(v);
  return Number.isInteger(v) ? v.toLocaleString('en-US') : v.toLocaleString('en-US', { maximumFractionDigits: 1 });
}

