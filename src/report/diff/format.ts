// `bench diff` as people read it: one table (terminal, Markdown) and one CSV, a row per
// configuration and metric: A, B, the change and its 95% interval, and what the interval says.
import type { Interval } from '../stats/intervals.ts';
import { perSuccessNotes, perSuccessText } from '../format/figures.ts';
import { INTERVAL_METHODS, METRIC_NAMES, type DiffRow, type Metric, type SweepDiff } from './diff.ts';
import { int, usd } from '../format/numbers.ts';
import type { Difference } from '../data/sweep-settings.ts';

const sign = (x: number, text: string) => (x > 0 ? `+${text}` : x < 0 ? `−${text}` : '±0');
const value: Record<Metric, (x: number) => string> = {
  cost: usd,
  tokens: int,
  steps: (x) => x.toFixed(1),
  success: (x) => `${Math.round(x * 100)}%`,
  cost_per_success: usd,
};
/** A signed amount of a metric's unit. */
const amount: Record<Metric, (x: number) => string> = {
  cost: (x) => sign(x, usd(Math.abs(x))),
  tokens: (x) => sign(Math.round(x), int(Math.abs(x))),
  steps: (x) => sign(Math.round(x * 10), Math.abs(x).toFixed(1)),
  success: (x) => `${sign(Math.round(x * 100), String(Math.abs(Math.round(x * 100))))} pts`,
  cost_per_success: (x) => sign(x, usd(Math.abs(x))),
};

function side(r: DiffRow, which: 'a' | 'b'): string {
  if (r.each) {
    const c = r.each[which];
    return perSuccessText(c.value, c.ci, usd, c.unseen_failures, c.wide_spread);
  }
  const v = value[r.metric](r[which]);
  return r.metric === 'success'
    ? `${r[which === 'a' ? 'successes_a' : 'successes_b']}/${r[which === 'a' ? 'runs_a' : 'runs_b']} (${v})`
    : v;
}

function change(r: DiffRow): string {
  // A side where nothing succeeded has no cost per success to subtract.
  if (!Number.isFinite(r.change)) return '–';
  if (r.metric === 'success' || r.metric === 'steps') return amount[r.metric](r.change);
  return r.relative === null
    ? amount[r.metric](r.change)
    : sign(r.relative, `${Math.abs(r.relative * 100).toFixed(1)}%`);
}

const interval = (r: DiffRow, ci: Interval) => `[${amount[r.metric](ci.lo)}, ${amount[r.metric](ci.hi)}]`;

/**
 * What the interval says: B higher, lower, or no clear change (the interval holds 0). For cost per success,
 * two intervals: apart, the difference is clear (for intervals close to normal, a stricter test than a 95%
 * interval of it); overlapping, nothing is shown either way.
 */
function reading(r: DiffRow): string {
  if (r.each) {
    const [a, b] = [r.each.a.ci, r.each.b.ci];
    if (!a || !b) return 'too few runs or successes to tell';
    if (b.lo > a.hi) return 'B higher (intervals apart)';
    if (b.hi < a.lo) return 'B lower (intervals apart)';
    return 'intervals overlap';
  }
  if (!r.ci) return 'too few runs to tell';
  if (r.ci.lo > 0) return 'B higher';
  if (r.ci.hi < 0) return 'B lower';
  return r.change === 0 && r.ci.lo === 0 && r.ci.hi === 0 ? 'same' : 'no clear change';
}

export const DIFF_HEAD = ['configuration', 'metric', 'A', 'B', 'change', '95% interval of B − A', 'reading'];

export function diffTableRows(d: SweepDiff): string[][] {
  let last = '';
  return d.rows.map((r) => {
    const first = r.config_id !== last;
    last = r.config_id;
    return [
      first ? r.config_id : '',
      METRIC_NAMES[r.metric],
      side(r, 'a'),
      side(r, 'b'),
      change(r),
      r.ci ? interval(r, r.ci) : '–',
      reading(r),
    ];
  });
}

const METHOD_NOTE = [
  "95% intervals of B − A: Welch's t interval for the means (cost, tokens, steps), Newcombe's hybrid score interval for the success rate; 'no clear change' where the interval holds 0.",
  "Cost per successful task: each sweep's own 95% interval, as its report gives it, and no interval of B − A; 'B higher' or 'B lower' only where the two intervals are apart, 'intervals overlap' otherwise (which does not show that they cost the same).",
];

/** The † and ≈ notes of the sides whose intervals carry the marks, their configurations named with the side. */
function perSuccessNotesOf(d: SweepDiff): string[] {
  return perSuccessNotes(
    d.rows.flatMap((r) =>
      r.each
        ? (['a', 'b'] as const).map((w) => ({
            config_id: `${r.config_id} in ${w.toUpperCase()}`,
            unseen_failures: r.each![w].unseen_failures,
            wide_spread: r.each![w].wide_spread,
          }))
        : [],
    ),
  );
}

function header(aName: string, bName: string, d: SweepDiff, allowed: readonly Difference[]): string[] {
  const configs = new Set(d.rows.map((r) => r.config_id)).size;
  return [
    `A: ${aName}`,
    `B: ${bName}`,
    allowed.length
      ? `They differ (allowed) in: ${allowed.map((x) => x.text).join('; ')}`
      : 'They differ in nothing but their runs.',
    `${configs} configuration${configs === 1 ? '' : 's'} in both${d.onlyA.length ? `; only in A: ${d.onlyA.join(', ')}` : ''}${d.onlyB.length ? `; only in B: ${d.onlyB.join(', ')}` : ''}.`,
  ];
}

export function diffText(aName: string, bName: string, d: SweepDiff, allowed: readonly Difference[]): string {
  const rows = [DIFF_HEAD, ...diffTableRows(d)];
  const widths = DIFF_HEAD.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => (i >= 2 && i <= 4 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [
    ...header(aName, bName, d, allowed),
    '',
    line(rows[0]!),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...rows.slice(1).map(line),
    '',
    ...perSuccessNotesOf(d),
    ...METHOD_NOTE,
    '',
  ].join('\n');
}

const mdCell = (s: string) => s.replaceAll('|', '\\|');

export function diffMarkdown(aName: string, bName: string, d: SweepDiff, allowed: readonly Difference[]): string {
  const [a, b, ...rest] = header(aName, bName, d, allowed);
  return [
    '## bench diff',
    '',
    `- ${a!.replace(/^A: (.*)$/, 'A: `$1`')}`,
    `- ${b!.replace(/^B: (.*)$/, 'B: `$1`')}`,
    ...rest.map((l) => `- ${l}`),
    '',
    `| ${DIFF_HEAD.join(' | ')} |`,
    `|${DIFF_HEAD.map((_, i) => (i >= 2 && i <= 4 ? '---:' : '---')).join('|')}|`,
    ...diffTableRows(d).map((r) => `| ${r.map(mdCell).join(' | ')} |`),
    '',
    ...[...perSuccessNotesOf(d), ...METHOD_NOTE].flatMap((l) => [l, '']),
  ].join('\n');
}

/** Empty for what is not a number: no figure, or none succeeded (Infinity). */
const finite = (x: number | undefined) => (x !== undefined && Number.isFinite(x) ? x : '');

/** One CSV row per configuration and metric, numbers unformatted. */
export function diffCsvRows(d: SweepDiff): Array<Record<string, unknown>> {
  return d.rows.map((r) => ({
    scenario: r.scenario,
    config_id: r.config_id,
    metric: r.metric,
    runs_a: r.runs_a,
    runs_b: r.runs_b,
    a: finite(r.a),
    b: finite(r.b),
    change: finite(r.change),
    relative_change: r.relative ?? '',
    ci95_lo: r.ci?.lo ?? '',
    ci95_hi: r.ci?.hi ?? '',
    a_ci95_lo: r.each?.a.ci?.lo ?? '',
    a_ci95_hi: finite(r.each?.a.ci?.hi),
    b_ci95_lo: r.each?.b.ci?.lo ?? '',
    b_ci95_hi: finite(r.each?.b.ci?.hi),
    interval: INTERVAL_METHODS[r.metric],
    reading: reading(r),
  }));
}
