// report.html: one self-contained file (inline CSS and SVG, no scripts, no external requests),
// readable on screen and printable.
import { describePrecisionDesign } from '../stats/precision.ts';
import { describeSettings, runCount, type ReportData } from './report-data.ts';
import { isDerived } from '../../contracts/derived.ts';
import { contextTable, reflectionTable } from '../tables/loops.ts';
import {
  decisionTable,
  fitTable,
  ratioTableRows,
  repriceTable,
  runsTable,
  savingsTable,
  summaryTable,
  volumeTable,
  type Table,
} from '../tables/tables.ts';
import { constraintTable, queueTable, roleTable } from '../tables/taskqueue.ts';
import { DETECTOR_NOTE, detectorTable } from '../tables/detectors.ts';
import { dayTable, modelTable, spendNote } from '../tables/spend.ts';
import type { Spend } from '../stats/spend.ts';
import { counted } from '../format/numbers.ts';
import { perSuccessNotes } from '../format/figures.ts';
import { reportTitle, titleText } from './title.ts';
import { leadLine, sentences } from './decision-lines.ts';

/** Per-run rows beyond this are in runs.csv; the HTML stays light for big sweeps. */
export const MAX_RUN_ROWS = 500;

export const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** `rowClass`: a class per row (a budget that did not hold is marked apart from one that holds). */
function table(t: Table, caption?: string, rowClass: (row: readonly string[]) => string | null = () => null): string {
  const cls = (i: number) => (t.numeric.includes(i) ? ' class="num"' : '');
  const tr = (r: readonly string[]) => {
    const c = rowClass(r);
    return c ? `<tr class="${c}">` : '<tr>';
  };
  return [
    '<div class="scroll"><table>',
    caption ? `<caption>${esc(caption)}</caption>` : '',
    `<thead><tr>${t.head.map((h, i) => `<th${cls(i)}>${esc(h)}</th>`).join('')}</tr></thead>`,
    `<tbody>${t.rows.map((r) => `${tr(r)}${r.map((v, i) => `<td${cls(i)}>${esc(v)}</td>`).join('')}</tr>`).join('\n')}</tbody>`,
    '</table></div>',
  ].join('\n');
}

/** Several SVGs in one page must not share element ids (vega numbers clip paths from 1 in each). */
function scopeSvgIds(svg: string, prefix: string): string {
  return svg
    .replace(/\bid="([^"]+)"/g, `id="${prefix}-$1"`)
    .replace(/url\(#([^)]+)\)/g, `url(#${prefix}-$1)`)
    .replace(/href="#([^"]+)"/g, `href="#${prefix}-$1"`);
}

/** One line per decision; the whole of it, sentence by sentence, folded below. */
const decisionItem = (text: string) =>
  `<li><details><summary>${esc(leadLine(text))}</summary>${sentences(text)
    .map((x) => `<p>${esc(x)}</p>`)
    .join('')}</details></li>`;

const CSS = `
:root { color-scheme: light; }
body { font-family: "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; color: #1a1a1a; background: #fff; margin: 0; line-height: 1.45; }
main { max-width: 1040px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 24px; margin: 0 0 6px; line-height: 1.3; }
h1 .answer { display: block; font-size: 19px; font-weight: normal; color: #1f4e79; }
.kicker { font-size: 13px; color: #666; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 32px 0 10px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
.lede { color: #444; margin: 0 0 8px; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; font-size: 14px; }
dl.meta dt { color: #555; } dl.meta dd { margin: 0; font-family: "DejaVu Sans Mono", monospace; word-break: break-all; }
ul.findings li { margin: 6px 0; font-size: 15px; }
ul.decisions { list-style: none; padding-left: 0; }
ul.decisions summary { cursor: pointer; font-size: 15px; }
ul.decisions details p { margin: 4px 0 4px 18px; font-size: 14px; color: #333; }
figure { margin: 18px 0 26px; break-inside: avoid; page-break-inside: avoid; }
figure svg { max-width: 100%; height: auto; display: block; }
figcaption { font-size: 13px; color: #444; margin-top: 4px; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: 13px; margin: 8px 0 16px; }
caption { text-align: left; font-weight: bold; padding: 4px 0; }
th, td { border-bottom: 1px solid #e3e3e3; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num, td:first-child { white-space: nowrap; }
.note { font-size: 13px; color: #555; }
.warn { background: #fff6d5; padding: 6px 10px; border-left: 4px solid #e0b400; }
tr.breached td { background: #f8d0cb; color: #7a1a10; }
tr.breached td:first-child { font-weight: bold; }
tr.breached td:first-child::before { content: "✗ "; }
tr.holds td:first-child { color: #2a7a38; }
tr.unmeasured td:first-child { color: #7a5a00; }
@media print {
  main { max-width: none; padding: 0; }
  h2 { break-after: avoid; page-break-after: avoid; }
  tr { break-inside: avoid; }
  .scroll { overflow: visible; }
}
`;

export function renderHtml(d: ReportData): string {
  const m = d.meta;
  // Runs recorded in this directory; derived (what-if) runs are counted apart.
  const recorded = d.runs.filter((r) => !isDerived(r.config_id)).length;
  const scenarios = m?.scenarios ?? [...new Set(d.summary.map((c) => c.scenario))];
  const metaRows: Array<[string, string]> = [
    ['scenarios', scenarios.join(', ')],
    ...describeSettings(d.summary),
    ['prices', d.pricing],
    // Adaptive repeats plan up to max per configuration and take what they need.
    [
      'runs',
      `${recorded}${m ? ` of ${m.runs_planned} planned (${m.status})` : ''}${m ? `, ${m.adaptive ? `${m.adaptive.min}..${m.adaptive.max} (adaptive)` : m.repeat} per configuration` : ''}`,
    ],
    ...(m?.adaptive?.rule === 'precision'
      ? ([['repeats', `--repeat auto: ${describePrecisionDesign(m.adaptive)}`]] as Array<[string, string]>)
      : []),
    ['seed', m ? String(m.seed) : 'unknown (no meta.json)'],
    ['date', m ? m.created_at : 'unknown'],
    ['commit', m?.git_commit ?? 'unknown'],
    ['command', m ? `bench ${m.command.join(' ')}` : 'unknown'],
  ];
  const skipped = d.skipped.steps + d.skipped.runs;
  const notes = perSuccessNotes(d.economics);
  const runs = d.shownRuns;
  const title = reportTitle(d.summary, d.recommendations);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(titleText(title))}</title>
<style>${CSS}</style>
</head>
<body>
<main>
<p class="kicker">loopbench report · ${esc(d.name)}</p>
<h1>${esc(title.question)} <span class="answer">${esc(title.answer)}</span></h1>
<p class="lede">What these agent loops cost and whether they stop: ${runCount(d)} over ${counted(d.summary.length, 'configuration')}. Costs ${esc(d.pricing)}.</p>
${
  d.decisions.length
    ? `<section id="decision"><h2>${d.recommended === false ? 'Step limits (no check, so none recommended)' : 'Recommended limits'}</h2>
<ul class="findings decisions">${d.decisions.map(decisionItem).join('\n')}</ul>
${table(decisionTable(d.summary, d.economics), 'Cost per run and per successful task; +1 step: the extra cost per extra step taken between neighbouring limits (measured), and of step N+1 on the fitted curve at the mean steps taken (fit)')}
${notes.map((n) => `<p class="note">${esc(n)}</p>`).join('\n')}
</section>`
    : ''
}
${skipped > 0 ? `<p class="warn">${skipped} incomplete record line(s) were skipped (an interrupted run leaves a partial last line).</p>` : ''}${d.skipped.duplicateRuns ? `<p class="warn">${d.skipped.duplicateRuns} run record(s) in runs.jsonl repeat a run id already read and were not counted.</p>` : ''}
<section id="run"><h2>What was run</h2>
<dl class="meta">${metaRows.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join('')}</dl>
${d.sampling?.length ? `<ul class="findings">${d.sampling.map((x) => `<li>${esc(`${x.config_id}: ${x.reason}`)}</li>`).join('\n')}</ul>` : ''}
</section>
<section id="findings"><h2>Findings</h2>
<ul class="findings">${d.findings.map((f) => `<li>${esc(f)}</li>`).join('\n')}</ul>
</section>
<section id="summary"><h2>Summary by configuration</h2>
${table(summaryTable(d.summary))}
<p class="note">Success: runs whose answer passed the scenario's check, with the Wilson 95% interval. Costs are USD per run, ${esc(d.pricing)}.</p>
</section>
<section id="charts"><h2>Charts</h2>
${d.charts.map((c) => `<figure class="chart" id="chart-${c.name}">${scopeSvgIds(c.svg, c.name)}<figcaption>${esc(c.caption)}</figcaption></figure>`).join('\n')}
</section>
<section id="fit"><h2>The quadratic cost curve</h2>
${d.fits.length ? table(fitTable(d.fits), 'Least-squares fit per scenario') : '<p class="note">Not enough steps to fit a curve.</p>'}
${d.ratios.length ? table(ratioTableRows(d.ratios), 'Steps taken ×k → input tokens ×r, between the step limits swept (k is the ratio of the steps the runs took, which another brake or an early finish can make smaller than the limits’)') : ''}
${d.savings.length ? table(savingsTable(d.savings), 'Each lower step limit against the highest') : ''}
</section>
${
  d.loop?.stability.length
    ? `<section id="reflection"><h2>Reflection: what it costs and what it buys</h2>
${table(reflectionTable(d.loop.stability), 'Per configuration over its repeats: success, pass^k, answers reflection changed, and tokens and cost against reflection off (stability.csv, pass-hat-k.csv)')}
</section>`
    : ''
}
${
  d.loop?.context.length
    ? `<section id="context"><h2>Context strategies: what each saves</h2>
${table(contextTable(d.loop.context), 'Input tokens and cost per run against full context, the largest prompt sent, and the fit of cumulative input tokens per strategy (context.csv)')}
</section>`
    : ''
}
<section id="volume"><h2>Volume projection</h2>
${table(volumeTable(d.volumes))}
<p class="note">Mean cost per run × runs; a month is 30 days.</p>
</section>
${d.repriced.length ? repricingSection(d) : ''}
${d.taskqueue ? taskqueueSection(d.taskqueue) : ''}
${
  d.detectors?.length
    ? `<section id="spin-detectors"><h2>Spin detectors: loops caught and false stops</h2>
${table(detectorTable(d.detectors), 'Each detector setting against the same configuration with it off, run by run at the same seed (spin_detectors.csv)')}
<p class="note">${esc(DETECTOR_NOTE)}</p>
</section>`
    : ''
}
${d.spend ? spendSection(d.spend) : ''}<section id="runs"><h2>Runs</h2>
${table(runsTable(runs))}
${recorded > runs.length ? `<p class="note">The first ${runs.length} of ${recorded} runs; all are in runs.csv.</p>` : ''}
</section>
<p class="note">Generated by loopbench${m ? ` ${esc(m.version)}` : ''} on ${esc(d.generated_at)} from the records in this directory (steps.jsonl, runs.jsonl); CSV: summary.csv, runs.csv, steps.csv.</p>
</main>
</body>
</html>
`;
}

/** The re-pricing table, named for what it holds: other models' rates (--price-as), or only caching at the report's own. */
function repricingSection(d: ReportData): string {
  const own = new Set(d.summary.map((c) => c.settings.price.model));
  const shown = [...new Set(d.repriced.map((r) => r.price_model))];
  const others = shown.some((m) => !own.has(m));
  const estimated = d.repriced.some((r) => r.cache_estimated)
    ? ' "on (estimated)": the run was recorded without prompt caching; each call\'s cached prefix is estimated as the previous call\'s prompt, billed as the provider does (from 1,024 tokens, in 128-token steps).'
    : '';
  const what = others
    ? `The recorded tokens priced at the rates of ${shown.join(', ')}, without and with prompt caching.`
    : `The recorded tokens at the report's own rates (${shown.join(', ')}), without and with prompt caching; for other models' rates, bench report DIR --price-as with models of the pricing table (e.g. --price-as gpt-4o-mini,gpt-4o).`;
  return `<section id="repricing"><h2>${others ? 'Re-priced under other rates' : 'With and without prompt caching'}</h2>
${table(repriceTable(d.repriced))}
<p class="note">${esc(what + estimated)}</p>
</section>`;
}

/** What `bench check` puts at the top of report.html: its verdict and each budget's result (the report layer knows no budgets). */
export interface CheckSection {
  status: 'pass' | 'fail' | 'not measured';
  /** `bench check: 1 of 7 budgets breached`. */
  headline: string;
  /** The budgets file and model. */
  note: string;
  /** One row per budget: result, scenario, budget, measured, limit. */
  table: Table;
  /** One sentence per budget that did not hold. */
  messages: readonly string[];
}

/** The class of a budget's row by its result word (the table's first column): a breach is marked in colour, not only in the word. */
const CHECK_ROW: Record<string, string> = {
  breached: 'breached',
  'not shown to hold': 'breached',
  holds: 'holds',
  'not measured': 'unmeasured',
};

const CHECK_STYLE: Record<CheckSection['status'], string> = {
  pass: 'border-left: 4px solid #3a9a4a; background: #eef7ee; padding: 2px 14px 6px',
  fail: 'border-left: 4px solid #c0392b; background: #fdecea; padding: 2px 14px 6px',
  'not measured': 'border-left: 4px solid #e0b400; background: #fff6d5; padding: 2px 14px 6px',
};

/**
 * report.html with the check's verdict as its first section, right under the title, where a reader of a CI
 * artifact looks first. The report is written before the budgets are judged, so the section goes in after.
 */
export function withCheckSection(html: string, c: CheckSection): string {
  const section = `<section id="check" style="${CHECK_STYLE[c.status]}"><h2>${esc(c.headline)}</h2>
<p class="note">${esc(c.note)}</p>
${table(c.table, undefined, (r) => CHECK_ROW[r[0]!] ?? null)}
${c.messages.length ? `<ul class="findings">${c.messages.map((m) => `<li>${esc(m)}</li>`).join('\n')}</ul>` : ''}
</section>
`;
  const old = /<section id="check"[^>]*>[\s\S]*?<\/section>\n/;
  if (old.test(html)) return html.replace(old, () => section);
  const lede = html.indexOf('<p class="lede">');
  const at = lede < 0 ? -1 : html.indexOf('</p>\n', lede);
  if (at < 0) throw new Error('report.html has no lede to put the check under');
  return `${html.slice(0, at + 5)}${section}${html.slice(at + 5)}`;
}

/** Imported logs' spend per day and per model; ends in a newline, so a report without it keeps its bytes. */
function spendSection(spend: Spend): string {
  return `<section id="spend"><h2>Spend by day and by model</h2>
${table(dayTable(spend))}
${table(modelTable(spend))}
<p class="note">${esc(spendNote(spend))}</p>
</section>
`;
}

function taskqueueSection(t: NonNullable<ReportData['taskqueue']>): string {
  return `<section id="taskqueue"><h2>Task queue</h2>
${table(queueTable(t.rounds), 'Queue length after each round (r0: the initial tasks)')}
${t.constraints.length ? table(constraintTable(t.constraints), 'Each constraint against the same configuration with it off') : '<p class="note">No constraint was swept on and off.</p>'}
${table(roleTable(t.roles), 'Calls and tokens per role, mean per run')}
<p class="note">CSV: taskqueue_rounds.csv (queue length, calls and tokens per round), taskqueue_roles.csv, taskqueue_constraints.csv.</p>
</section>`;
}
