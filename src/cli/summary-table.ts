import path from 'node:path';
import { formatStopReasons, type ConfigSummary } from '../report/aggregate.ts';
import { int } from '../report/format.ts';

const usd = (x: number) => `$${x.toFixed(4)}`;

/** The short table a sweep ends with; `--json` prints the same summary as JSON on stdout. */
export function printSummary(summary: ConfigSummary[], o: { json?: boolean; dir: string; findings?: readonly string[] }): void {
  if (o.json) {
    console.log(JSON.stringify({ results_dir: o.dir, configs: summary, findings: o.findings ?? [] }, null, 2));
    return;
  }
  const rows = summary.map((c) => [
    c.config_id,
    String(c.runs),
    c.success_rate === null ? '-' : `${c.successes}/${c.runs}`,
    formatStopReasons(c),
    c.steps.mean.toFixed(1),
    int(c.input_tokens.mean),
    int(c.output_tokens.mean),
    usd(c.cost_usd.mean),
    usd(c.cost_usd.p95),
  ]);
  const head = ['configuration', 'runs', 'success', 'stop reasons', 'steps', 'input tok', 'output tok', 'cost mean', 'cost p95'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((v, i) => (i <= 0 || i === 3 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join('  ');
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
  if (o.findings?.length) console.log(`\n${o.findings.map((f) => `- ${f}`).join('\n')}`);
  const rel = path.relative(process.cwd(), o.dir);
  console.log(`\nresults: ${rel && !rel.startsWith('..') ? rel : o.dir}  (stop reasons: runs @ step; report.html, summary.md)`);
}
