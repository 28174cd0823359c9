import path from 'node:path';
import type { ConfigSummary } from '../report/stats/aggregate.ts';
import { formatStopReasons, perSuccessNotes, perSuccessText } from '../report/format/figures.ts';
import type { ConfigEconomics } from '../report/stats/economics.ts';
import { int, usdDistinct } from '../report/format/numbers.ts';
import type { PrecisionOutcome } from '../report/stats/precision.ts';

export interface PrintedSummary {
  summary: readonly ConfigSummary[];
  findings?: readonly string[];
  /** The recommended limits: the summary opens with them. */
  decisions?: readonly string[];
  economics?: readonly ConfigEconomics[];
  /** How the figures are priced. */
  pricing?: string;
  /** `--repeat auto`: how many runs each configuration took and why. */
  sampling?: readonly PrecisionOutcome[];
}

/** `$0.52 ($0.41–$0.71)`; `–` without a check; `none succeeded` at 0%. */
function perSuccess(e: ConfigEconomics | undefined, usd: (x: number) => string): string {
  return !e || e.cost_per_success === null
    ? '–'
    : perSuccessText(e.cost_per_success, e.cost_per_success_ci, usd, e.unseen_failures, e.wide_spread);
}

/** The short table a sweep ends with; `--json` prints the same summary as JSON on stdout. */
export function printSummary(s: PrintedSummary, o: { json?: boolean; dir: string }): void {
  if (o.json) {
    const sampling = s.sampling?.length ? { sampling: s.sampling } : {};
    console.log(
      JSON.stringify(
        {
          results_dir: o.dir,
          pricing: s.pricing,
          decisions: s.decisions ?? [],
          configs: s.summary,
          economics: s.economics ?? [],
          findings: s.findings ?? [],
          ...sampling,
        },
        null,
        2,
      ),
    );
    return;
  }
  const econ = new Map((s.economics ?? []).map((e) => [e.config_id, e]));
  const checked = s.summary.some((c) => c.successes !== null);
  const stepped = [...econ.values()].some((e) => e.marginal_step_cost !== null);
  // One formatter per column: two different amounts never print the same.
  const col = (f: (c: ConfigSummary) => number[]) => usdDistinct(s.summary.flatMap(f));
  const mean = col((c) => [c.cost_usd.mean]);
  const p95 = col((c) => [c.cost_usd.p95]);
  const success = col((c) => {
    const e = econ.get(c.config_id);
    return e?.cost_per_success != null
      ? [e.cost_per_success, ...(e.cost_per_success_ci ? [e.cost_per_success_ci.lo, e.cost_per_success_ci.hi] : [])]
      : [];
  });
  const step = col((c) => [econ.get(c.config_id)?.marginal_step_cost ?? 0]);
  const rows = s.summary.map((c) => {
    const e = econ.get(c.config_id);
    return [
      c.config_id,
      String(c.runs),
      c.success_rate === null ? '-' : `${c.successes}/${c.runs}`,
      formatStopReasons(c),
      c.steps.mean.toFixed(1),
      int(c.input_tokens.mean),
      int(c.output_tokens.mean),
      mean(c.cost_usd.mean),
      p95(c.cost_usd.p95),
      ...(checked ? [perSuccess(e, success)] : []),
      ...(stepped ? [e?.marginal_step_cost == null ? '–' : step(e.marginal_step_cost)] : []),
    ];
  });
  const head = [
    'configuration',
    'runs',
    'success',
    'stop reasons',
    'steps',
    'input tok',
    'output tok',
    'cost/run',
    'cost p95',
    ...(checked ? ['cost/success (95% CI)'] : []),
    ...(stepped ? ['+1 step'] : []),
  ];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r.map((v, i) => (i <= 0 || i === 3 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join('  ');
  if (s.decisions?.length) console.log(`${s.decisions.map((d) => `» ${d}`).join('\n')}\n`);
  if (s.pricing) console.log(`Costs ${s.pricing}.\n`);
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
  for (const note of checked ? perSuccessNotes(s.economics ?? []) : []) console.log(`\n${note}`);
  if (s.findings?.length) console.log(`\n${s.findings.map((f) => `- ${f}`).join('\n')}`);
  if (s.sampling?.length) {
    const w = Math.max(...s.sampling.map((x) => x.config_id.length));
    console.log(`\n${s.sampling.map((x) => `RUNS  ${x.config_id.padEnd(w)}  ${x.reason}`).join('\n')}`);
  }
  const rel = path.relative(process.cwd(), o.dir);
  console.log(
    `\nresults: ${rel && !rel.startsWith('..') ? rel : o.dir}  (stop reasons: runs @ step; +1 step: extra cost per extra step taken; report.html, summary.md)`,
  );
}
