// Number formats shared by every human-facing report (terminal, HTML, Markdown).

export const int = (x: number) => Math.round(x).toLocaleString('en-US');

/** Dollars with enough digits to tell small per-run costs apart: $0.0075, $12.40, $1,290. */
export function usd(x: number): string {
  const a = Math.abs(x);
  if (a >= 1000) return `$${Math.round(x).toLocaleString('en-US')}`;
  if (a >= 1) return `$${x.toFixed(2)}`;
  if (a === 0) return '$0';
  return `$${x.toPrecision(2).replace(/e.*$/, '')}`;
}

export const pct = (x: number) => `${Math.round(x * 100)}%`;

/** ×3, ×2.5, ×9.15: two decimals at most, so a ratio near a rounding edge is not misread. */
export const times = (x: number) => (Number.isFinite(x) ? `×${+x.toFixed(2)}` : '–');

export function signed(x: number, digits = 0): string {
  const v = x.toFixed(digits);
  return x < 0 ? `−${v.slice(1)}` : v;
}
