// The reflection and context reports, computed once from the runs and the per-step aggregates:
// stability.csv and pass-hat-k.csv when reflection was used, context.csv when a strategy other
// than full context was swept, their charts, findings and tables. Pure: build.ts writes the files.
import type { RunFacts } from '../contracts/records.ts';
import { REFLECTIONS, type Reflection } from '../contracts/settings.ts';
import type { StepPoints } from './stats/step-points.ts';
import type { ChartSpec } from './charts/base.ts';
import type { ColourScale } from './charts/colours.ts';
import { contextRows, type ContextRow } from './stats/context.ts';
import { contextChart, reflectionChart } from './charts/loops.ts';
import { contextFindings, reflectionFindings } from './findings/loops.ts';
import { stabilityRows, type StabilityRow } from './stats/reflection.ts';

export interface LoopReports {
  stability: StabilityRow[];
  context: ContextRow[];
  charts: ChartSpec[];
  findings: string[];
  /** CSV file name → rows. */
  csv: Record<string, Array<Record<string, unknown>>>;
}

export function loopReports(
  runs: readonly RunFacts[],
  points: StepPoints,
  maxCallInput: ReadonlyMap<string, number>,
  colours: ColourScale,
): LoopReports {
  const reflected = runs.some((r) => r.settings.reflection !== 'off');
  const contexts = runs.some((r) => r.settings.context !== 'full');
  // Baseline first: reflection off → final → every-step; full context before the strategies.
  const stability = reflected
    ? stabilityRows(runs).sort(
        (a, b) => REFLECTIONS.indexOf(a.reflection as Reflection) - REFLECTIONS.indexOf(b.reflection as Reflection),
      )
    : [];
  const context = contexts
    ? contextRows(runs, points, maxCallInput).sort(
        (a, b) => Number(b.context === 'full') - Number(a.context === 'full'),
      )
    : [];
  const csv: LoopReports['csv'] = {};
  if (reflected) {
    csv['stability.csv'] = stability.map(({ pass_hat_k, ...row }) => ({
      ...row,
      pass_hat_1: pass_hat_k[0] ?? '',
      pass_hat_all: pass_hat_k.at(-1) ?? '',
    }));
    csv['pass-hat-k.csv'] = stability.flatMap((r) =>
      r.pass_hat_k.map((p, i) => ({ config_id: r.config_id, reflection: r.reflection, k: i + 1, pass_hat_k: p })),
    );
  }
  if (contexts)
    csv['context.csv'] = context.map(({ fit, ...row }) => ({
      ...row,
      fit_a: fit?.a ?? '',
      fit_b: fit?.b ?? '',
      fit_r2: fit?.r2 ?? '',
    }));
  return {
    stability,
    context,
    charts: [
      ...(reflected ? [reflectionChart(stability, colours)] : []),
      ...(contexts ? [contextChart(context, points, colours)] : []),
    ],
    findings: [...reflectionFindings(stability), ...contextFindings(context)],
    csv,
  };
}
