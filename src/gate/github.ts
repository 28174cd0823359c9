// GitHub Actions integration: `::error::` workflow commands for breached budgets, and summary.md
// appended to the job's step summary. Both only when running under Actions.
import fs from 'node:fs';
import type { Verdict } from './verdict.ts';

// https://docs.github.com/actions/reference/workflow-commands-for-github-actions
const data = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const property = (s: string) => data(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

export function errorAnnotations(verdicts: readonly Verdict[], file: string): string[] {
  return verdicts
    .filter((v) => !v.pass)
    .map(
      (v) =>
        `::error file=${property(file)},title=${property(`${v.miss ? `not measured (${v.missKind === 'spend-cap' ? 'spend cap' : 'replay miss'})` : 'budget breached'}: ${v.suite}`)}::${data(v.message)}`,
    );
}

export function publishToGithub(
  env: NodeJS.ProcessEnv,
  verdicts: readonly Verdict[],
  file: string,
  summaryMd: string,
): void {
  if (env.GITHUB_ACTIONS === 'true') for (const line of errorAnnotations(verdicts, file)) console.log(line);
  if (env.GITHUB_STEP_SUMMARY) fs.appendFileSync(env.GITHUB_STEP_SUMMARY, `${summaryMd}\n`);
}
