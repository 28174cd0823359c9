/** Lower bound of the Wilson score interval (95% by default) for k successes in n trials. */
export function wilsonLower(k: number, n: number, z = 1.959963984540054): number {
  if (n === 0) return 0;
  const p = k / n;
  const z2 = z * z;
  const centre = p + z2 / (2 * n);
  const margin = z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return Math.max(0, (centre - margin) / (1 + z2 / n));
}
