// summary.md of a check: the verdict first (what a pull-request reader wants), then the results
// directory's own summary.md (findings and the runs table) as `bench report` writes it.
import { markdownTable } from '../report/render/markdown.ts';
import { isBreach, type Verdict } from './verdict.ts';
import type { SamplingOutcome } from './adaptive.ts';
import { SIM_CAVEAT } from './sim-caveat.ts';

export function verdictLine(verdicts: readonly Verdict[]): string {
  const missed = verdicts.filter((v) => v.miss).length;
  const judged = verdicts.length - missed;
  const failed = verdicts.filter(isBreach);
  // A budget adaptive sampling left undecided failed the check, but no breach was shown: said apart.
  const undecided = failed.filter((v) => v.undecided).length;
  const breached = failed.length - undecided;
  const parts = [...(breached ? [`${breached} of ${judged} budgets breached`] : []), ...(undecided ? [`${undecided} of ${judged} not shown to hold (undecided at the most runs)`] : [])];
  const line = failed.length === 0 ? `all ${judged} budgets hold` : parts.join(', ');
  if (missed === 0) return line;
  const misses = verdicts.filter((v) => v.miss);
  const kinds = [...new Set(misses.map((v) => (v.missKind === 'spend-cap' ? 'spend cap' : 'replay miss')))].join(', ');
  return `${misses.filter((v) => v.suite !== 'gate').length} scenario(s) not measured (${kinds}); ${judged === 0 ? 'no budget judged' : line}`;
}

export function checkSummaryMd(o: { budgetsFile: string; model: string; simulated: boolean; verdicts: readonly Verdict[]; report: string; sampling?: { design: string; outcomes: readonly SamplingOutcome[] } }): string {
  const failed = o.verdicts.filter((v) => !v.pass);
  const table = {
    head: ['', 'scenario', 'budget', 'measured', 'limit'],
    rows: o.verdicts.map((v) => [v.pass ? '✅' : v.miss ? '⚠️' : '❌', v.suite, v.name, v.measured, v.limit]),
    numeric: [],
  };
  return [
    `## ${o.verdicts.some(isBreach) ? '❌' : failed.length ? '⚠️' : '✅'} bench check: ${verdictLine(o.verdicts)}`,
    '',
    `Budgets \`${o.budgetsFile}\`, model \`${o.model}\`.`,
    '',
    ...(o.simulated ? [`> ${SIM_CAVEAT}`, ''] : []),
    markdownTable(table),
    ...(failed.length ? ['', ...failed.map((v) => `- ${v.message}`)] : []),
    ...(o.sampling ? ['', `Adaptive repeats: ${o.sampling.design}.`, '', ...o.sampling.outcomes.map((s) => `- ${s.scenario}: ${s.reason}`)] : []),
    '',
    // The report's own headings sit one level below the verdict.
    o.report.replace(/^(#+) /gm, '#$1 '),
  ].join('\n');
}
