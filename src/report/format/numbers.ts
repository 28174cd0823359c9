// Number formats shared by every human-facing report (terminal, HTML, Markdown).

export const int = (x: number) => Math.round(x).toLocaleString('en-US');

/** Dollars with `digits` significant digits (at least cents from $1 up): $0.0075, $12.40, $1,290. */
export function usd(x: number, digits = 2): string {
  const a = Math.abs(x);
  const whole = a >= 1 ? Math.floor(Math.log10(a)) + 1 : 0;
  if (a >= 1000) return `$${x.toLocaleString('en-US', { maximumFractionDigits: Math.max(0, digits - whole) })}`;
  if (a >= 1) return `$${x.toFixed(Math.max(2, digits - whole))}`;
  if (a === 0) return '$0';
  // Fixed-point, not toPrecision: that turns amounts below $0.000001 into exponents (1.0e-7).
  return `$${x.toFixed(Math.min(20, digits - 1 - Math.floor(Math.log10(a))))}`;
}

/** usd() with as many digits as it takes to print different amounts differently (2 to 6 significant digits). */
export function usdDistinct(amounts: readonly number[]): (x: number) => string {
  // Amounts equal to 9 significant digits are the same money (sums of the same costs in another
  // order differ in the last bits): they need not, and could not, print apart.
  const distinct = [...new Set(amounts.filter(Number.isFinite).map((x) => Number(x.toPrecision(9))))];
  for (let d = 2; d < 6; d++)
    if (new Set(distinct.map((x) => usd(x, d))).size === distinct.length) return (x) => usd(x, d);
  return (x) => usd(x, 6);
}

export const pct = (x: number) => `${Math.round(x * 100)}%`;

/** ×3, ×2.5, ×9.15: two decimals at most, so a ratio near a rounding edge is not misread. */
export const times = (x: number) => (Number.isFinite(x) ? `×${+x.toFixed(2)}` : '–');

export function signed(x: number, digits = 0): string {
  const v = x.toFixed(digits);
  return x < 0 ? `−${v.slice(1)}` : v;
}

/** `1 configuration`, `4 configurations`: a count with its noun, singular for one. */
export const counted = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
