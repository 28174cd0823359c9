// summary.md of a check: the verdict first (what a pull-request reader wants), then the results
// directory's own summary.md (findings and the runs table) as `bench report` writes it.
import { markdownTable } from '../report/render/markdown.ts';
import type { CheckSection } from '../report/render/html.ts';
import { isBreach, isJudged, type Verdict } from './verdict.ts';
import type { SamplingOutcome } from './adaptive.ts';
import { SIM_CAVEAT } from './sim-caveat.ts';

export function verdictLine(verdicts: readonly Verdict[]): string {
  const missed = verdicts.filter((v) => v.miss).length;
  // Report-only lines (a baseline change with no limit) are figures, not budgets: not counted.
  const judged = verdicts.filter(isJudged).length;
  const failed = verdicts.filter(isBreach);
  // A budget adaptive sampling left undecided failed the check, but no breach was shown: said apart.
  const undecided = failed.filter((v) => v.undecided).length;
  const breached = failed.length - undecided;
  const parts = [
    ...(breached ? [`${breached} of ${judged} budgets breached`] : []),
    ...(undecided ? [`${undecided} of ${judged} not shown to hold (undecided at the most runs)`] : []),
  ];
  const line =
    failed.length === 0 ? (judged === 1 ? 'the 1 budget holds' : `all ${judged} budgets hold`) : parts.join(', ');
  if (missed === 0) return line;
  const misses = verdicts.filter((v) => v.miss);
  const kinds = [...new Set(misses.map((v) => (v.missKind === 'spend-cap' ? 'spend cap' : 'replay miss')))].join(', ');
  return `${misses.filter((v) => v.suite !== 'gate').length} scenario(s) not measured (${kinds}); ${judged === 0 ? 'no budget judged' : line}`;
}

/** One row per budget, for summary.md (marks) and report.html (words). */
function verdictTable(verdicts: readonly Verdict[], words: boolean) {
  const result = (v: Verdict) =>
    words
      ? v.reportOnly
        ? 'reported, no limit'
        : v.pass
          ? 'holds'
          : v.miss
            ? 'not measured'
            : v.undecided
              ? 'not shown to hold'
              : 'breached'
      : v.reportOnly
        ? 'ℹ️'
        : v.pass
          ? '✅'
          : v.miss
            ? '⚠️'
            : '❌';
  return {
    head: [words ? 'result' : '', 'scenario', 'budget', 'measured', 'limit'],
    rows: verdicts.map((v) => [result(v), v.suite, v.name, v.measured, v.limit]),
    numeric: [],
  };
}

/** The check's verdict as report.html's first section. */
export function checkHtmlSection(o: {
  budgetsFile: string;
  model: string;
  simulated: boolean;
  verdicts: readonly Verdict[];
}): CheckSection {
  const breach = o.verdicts.some(isBreach);
  const failed = o.verdicts.filter((v) => !v.pass);
  return {
    status: breach ? 'fail' : failed.length ? 'not measured' : 'pass',
    headline: `bench check ${breach ? 'FAIL' : failed.length ? 'NOT MEASURED' : 'PASS'}: ${verdictLine(o.verdicts)}`,
    note: `Budgets ${o.budgetsFile}, ${o.simulated ? SIM_CAVEAT : `model ${o.model}.`} The report below is the sweep the budgets were judged on.`,
    table: verdictTable(o.verdicts, true),
    messages: failed.map((v) => v.message),
  };
}

export function checkSummaryMd(o: {
  budgetsFile: string;
  model: string;
  simulated: boolean;
  verdicts: readonly Verdict[];
  report: string;
  sampling?: { design: string; outcomes: readonly SamplingOutcome[] };
}): string {
  const failed = o.verdicts.filter((v) => !v.pass);
  const table = verdictTable(o.verdicts, false);
  return [
    `## ${o.verdicts.some(isBreach) ? '❌' : failed.length ? '⚠️' : '✅'} bench check: ${verdictLine(o.verdicts)}`,
    '',
    `Budgets \`${o.budgetsFile}\`, model \`${o.model}\`.`,
    '',
    ...(o.simulated ? [`> ${SIM_CAVEAT}`, ''] : []),
    markdownTable(table),
    ...(failed.length ? ['', ...failed.map((v) => `- ${v.message}`)] : []),
    ...(o.sampling
      ? [
          '',
          `Adaptive repeats: ${o.sampling.design}.`,
          '',
          ...o.sampling.outcomes.map((s) => `- ${s.scenario}: ${s.reason}`),
        ]
      : []),
    '',
    // The report's own headings sit one level below the verdict.
    o.report.replace(/^(#+) /gm, '#$1 '),
  ].join('\n');
}
