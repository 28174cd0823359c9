// summary.md of a check: the verdict first (it is what a pull-request reader wants), then the runs.
import { formatStopReasons, type ConfigSummary } from '../report/aggregate.ts';
import { usd } from './format.ts';
import type { Verdict } from './verdict.ts';

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function verdictLine(verdicts: readonly Verdict[]): string {
  const failed = verdicts.filter((v) => !v.pass).length;
  return failed === 0 ? `all ${verdicts.length} budgets hold` : `${failed} of ${verdicts.length} budgets breached`;
}

export function checkSummaryMd(o: { budgetsFile: string; model: string; dir: string; verdicts: readonly Verdict[]; summary: readonly ConfigSummary[] }): string {
  const failed = o.verdicts.some((v) => !v.pass);
  const lines = [
    `## ${failed ? '❌' : '✅'} bench check: ${verdictLine(o.verdicts)}`,
    '',
    `Budgets \`${o.budgetsFile}\` · model \`${o.model}\` · results \`${o.dir}\``,
    '',
    '| | scenario | budget | measured | limit |',
    '|---|---|---|---|---|',
    ...o.verdicts.map((v) => `| ${v.pass ? '✅' : '❌'} | ${cell(v.suite)} | ${cell(v.name)} | ${cell(v.measured)} | ${cell(v.limit)} |`),
  ];
  const breaches = o.verdicts.filter((v) => !v.pass);
  if (breaches.length) lines.push('', ...breaches.map((v) => `- ${cell(v.message)}`));
  lines.push(
    '',
    '### Runs',
    '',
    '| configuration | runs | success | stop reasons | steps (mean) | tokens (mean) | cost mean | cost p95 |',
    '|---|---:|---:|---|---:|---:|---:|---:|',
    ...o.summary.map(
      (c) =>
        `| ${cell(c.config_id)} | ${c.runs} | ${c.successes === null ? '-' : `${c.successes}/${c.runs}`} | ${formatStopReasons(c)} | ${c.steps.mean.toFixed(1)} | ${Math.round(c.input_tokens.mean + c.output_tokens.mean).toLocaleString('en-US')} | ${usd(c.cost_usd.mean)} | ${usd(c.cost_usd.p95)} |`,
    ),
    '',
  );
  return lines.join('\n');
}
