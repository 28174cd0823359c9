// JUnit XML, the format CI systems show as test results: one testsuite per scenario (plus `gate`
// for checks over the whole run), one testcase per assertion, a <failure> for each breach, an
// <error> for a scenario that was not measured (a replay miss, or a spend cap no run fitted under).
import { isBreach, type Verdict } from './verdict.ts';
import type { SamplingOutcome } from './adaptive.ts';
import { groupBy } from '../report/data/group.ts';

const escape = (s: string) =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    // Kept as characters: a parser would turn a literal line break in an attribute into a space.
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;')
    // Characters XML 1.0 cannot carry at all.
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

/** With adaptive repeats, each scenario's suite carries how many runs it took, why it stopped and how it decides, as properties. */
export function junitXml(
  verdicts: readonly Verdict[],
  name = 'bench check',
  sampling?: { design: string; outcomes: readonly SamplingOutcome[] },
): string {
  const suites = groupBy(verdicts, (v) => v.suite);
  const failures = (vs: readonly Verdict[]) => vs.filter(isBreach).length;
  const errors = (vs: readonly Verdict[]) => vs.filter((v) => v.miss).length;
  const skipped = (vs: readonly Verdict[]) => vs.filter((v) => v.reportOnly).length;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${escape(name)}" tests="${verdicts.length}" failures="${failures(verdicts)}" errors="${errors(verdicts)}" skipped="${skipped(verdicts)}">`,
  ];
  for (const [suite, vs] of suites) {
    lines.push(
      `  <testsuite name="${escape(suite)}" tests="${vs.length}" failures="${failures(vs)}" errors="${errors(vs)}" skipped="${skipped(vs)}">`,
    );
    const s = sampling?.outcomes.find((x) => x.scenario === suite);
    if (s)
      lines.push(
        '    <properties>',
        `      <property name="runs" value="${s.runs}"/>`,
        `      <property name="sampling" value="${escape(s.reason)}"/>`,
        `      <property name="design" value="${escape(sampling!.design)}"/>`,
        '    </properties>',
      );
    for (const v of vs) {
      const open = `    <testcase classname="${escape(`bench.${suite}`)}" name="${escape(v.name)}"`;
      // A report-only line judges nothing: skipped, with its figure as the reason.
      if (v.reportOnly)
        lines.push(
          `${open}>`,
          `      <skipped message="${escape(`reported only, no limit: ${v.measured}`)}"/>`,
          '    </testcase>',
        );
      else if (v.pass) lines.push(`${open}/>`);
      else {
        lines.push(`${open}>`);
        const tag = v.miss ? 'error' : 'failure';
        lines.push(
          `      <${tag} type="${v.miss ? (v.missKind ?? 'replay-miss') : 'budget'}" message="${escape(v.message)}">measured: ${escape(v.measured)}; limit: ${escape(v.limit)}</${tag}>`,
        );
        lines.push('    </testcase>');
      }
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>', '');
  return lines.join('\n');
}
