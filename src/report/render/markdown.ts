// summary.md: the findings and a compact table, sized for a pull-request comment or $GITHUB_STEP_SUMMARY.
import { runCount, type ReportData } from './report-data.ts';
import { counted } from '../format/numbers.ts';
import { perSuccessNotes } from '../format/figures.ts';
import { contextTable, reflectionTable } from '../tables/loops.ts';
import {
  decisionTable,
  ratioTableRows,
  savingsTable,
  summaryTable,
  volumeTable,
  type Table,
} from '../tables/tables.ts';
import { constraintTable, queueTable } from '../tables/taskqueue.ts';
import { DETECTOR_NOTE, detectorTable } from '../tables/detectors.ts';
import { describePrecisionDesign } from '../stats/precision.ts';
import { dayTable, modelTable, spendNote } from '../tables/spend.ts';

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function markdownTable(t: Table): string {
  const align = t.head.map((_, i) => (t.numeric.includes(i) ? '---:' : '---'));
  return [t.head, align, ...t.rows].map((r, i) => `| ${(i === 1 ? r : r.map(cell)).join(' | ')} |`).join('\n');
}

export function renderMarkdown(d: ReportData): string {
  const m = d.meta;
  const skipped = d.skipped.steps + d.skipped.runs;
  const notes = perSuccessNotes(d.economics);
  const parts = [
    `## loopbench: ${d.name}`,
    '',
    ...d.decisions.map((x) => `**${x}**\n`),
    `${runCount(d)}, ${counted(d.summary.length, 'configuration')}; costs ${d.pricing}` +
      (m ? `; seed ${m.seed}${m.git_commit ? `, commit ${m.git_commit.slice(0, 10)}` : ''}, ${m.created_at}` : '') +
      '.',
    ...(skipped > 0 ? ['', `> ${skipped} incomplete record line(s) were skipped.`] : []),
    ...(d.skipped.duplicateRuns
      ? [
          '',
          `> ${d.skipped.duplicateRuns} run record(s) in runs.jsonl repeat a run id already read and were not counted.`,
        ]
      : []),
    ...(m?.adaptive?.rule === 'precision' && d.sampling?.length
      ? [
          '',
          `Adaptive repeats (\`--repeat auto\`): ${describePrecisionDesign(m.adaptive)}.`,
          '',
          ...d.sampling.map((s) => `- ${s.config_id}: ${s.reason}`),
        ]
      : []),
    '',
    '### Findings',
    '',
    ...d.findings.map((f) => `- ${f}`),
    '',
    markdownTable(summaryTable(d.summary, true)),
    '',
    '### Cost per successful task, and per extra step',
    '',
    markdownTable(decisionTable(d.summary, d.economics)),
    ...notes.flatMap((n) => ['', n]),
  ];
  if (d.ratios.length)
    parts.push('', '### Steps taken ×k → input tokens ×r', '', markdownTable(ratioTableRows(d.ratios)));
  if (d.savings.length)
    parts.push('', '### Lower step limits against the highest', '', markdownTable(savingsTable(d.savings)));
  if (d.loop?.stability.length)
    parts.push(
      '',
      '### Reflection: what it costs and what it buys',
      '',
      markdownTable(reflectionTable(d.loop.stability)),
    );
  if (d.loop?.context.length)
    parts.push('', '### Context strategies: what each saves', '', markdownTable(contextTable(d.loop.context)));
  if (d.taskqueue) {
    parts.push('', '### Task queue: length after each round', '', markdownTable(queueTable(d.taskqueue.rounds)));
    if (d.taskqueue.constraints.length)
      parts.push(
        '',
        '### Task queue: each constraint on vs off',
        '',
        markdownTable(constraintTable(d.taskqueue.constraints)),
      );
  }
  if (d.detectors?.length)
    parts.push(
      '',
      '### Spin detectors: loops caught and false stops',
      '',
      markdownTable(detectorTable(d.detectors)),
      '',
      DETECTOR_NOTE,
    );
  if (d.spend)
    parts.push(
      '',
      '### Spend by day',
      '',
      markdownTable(dayTable(d.spend)),
      '',
      '### Spend by model',
      '',
      markdownTable(modelTable(d.spend)),
      '',
      spendNote(d.spend),
    );
  parts.push(
    '',
    '### Volume projection',
    '',
    markdownTable(volumeTable(d.volumes)),
    '',
    'Charts, the fit, re-pricing and every run: `report.html` in the results directory.',
    '',
  );
  return parts.join('\n');
}
