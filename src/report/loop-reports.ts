// Writes the reflection and context reports of a results directory: stability.csv and
// pass-hat-k.csv when reflection was used, context.csv and context-curves.csv when a context
// strategy other than full was swept. Steps stream from steps.jsonl, so memory stays flat.
import { readJsonlLines } from '../runner/jsonl.ts';
import type { RunRecord, StepRecord } from '../runner/records.ts';
import { resultFile } from '../runner/results-dir.ts';
import { writeFileAtomic } from '../runner/atomic.ts';
import path from 'node:path';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { contextChart, reflectionChart, type LoopChart } from './loop-charts.ts';
import { contextRows, CumulativeCurves, type ContextRow, type CurvePoint } from './context-savings.ts';
import { toCsv } from './csv.ts';
import { contextFindings, reflectionFindings } from './loop-findings.ts';
import { stabilityRows, type StabilityRow } from './stability.ts';

export interface LoopReports {
  charts: LoopChart[];
  stability: StabilityRow[];
  context: ContextRow[];
  curves: CurvePoint[];
  findings: string[];
}

export const LOOP_FILES = { stability: 'stability.csv', passHatK: 'pass-hat-k.csv', context: 'context.csv', curves: 'context-curves.csv' } as const;

/** Vega-Lite → Vega → SVG, headless (renderer 'none'). */
async function toSvg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

async function curvesOf(dir: string): Promise<{ curves: CurvePoint[]; maxCallInput: Map<string, number> }> {
  const acc = new CumulativeCurves();
  const maxCallInput = new Map<string, number>();
  for await (const line of readJsonlLines(resultFile(dir, 'steps'))) {
    if (!line.ok) continue;
    const r = line.value as StepRecord;
    acc.add(r);
    maxCallInput.set(r.config_id, Math.max(maxCallInput.get(r.config_id) ?? 0, r.input_tokens));
  }
  return { curves: acc.points(), maxCallInput };
}

export async function buildLoopReports(dir: string, runs: readonly RunRecord[]): Promise<LoopReports> {
  const reflected = runs.some((r) => r.settings.reflection !== 'off');
  const contexts = runs.some((r) => r.settings.context !== 'full');
  const stability = reflected ? stabilityRows(runs) : [];
  const { curves, maxCallInput } = contexts ? await curvesOf(dir) : { curves: [], maxCallInput: new Map() };
  const context = contexts ? contextRows(runs, curves, maxCallInput) : [];
  const file = (name: string) => path.join(dir, name);
  if (reflected) {
    writeFileAtomic(file(LOOP_FILES.stability), toCsv(stability.map(({ pass_hat_k, ...row }) => ({ ...row, pass_hat_1: pass_hat_k[0] ?? '', pass_hat_all: pass_hat_k.at(-1) ?? '' }))));
    writeFileAtomic(file(LOOP_FILES.passHatK), toCsv(stability.flatMap((r) => r.pass_hat_k.map((p, i) => ({ config_id: r.config_id, reflection: r.reflection, k: i + 1, pass_hat_k: p })))));
  }
  if (contexts) {
    writeFileAtomic(file(LOOP_FILES.context), toCsv(context.map(({ fit, ...row }) => ({ ...row, fit_a: fit?.a ?? '', fit_b: fit?.b ?? '', fit_r2: fit?.r2 ?? '' }))));
    writeFileAtomic(file(LOOP_FILES.curves), toCsv(curves.map((p) => ({ ...p }))));
  }
  const charts = [...(reflected ? [reflectionChart(stability)] : []), ...(contexts ? [contextChart(context, curves)] : [])];
  for (const c of charts) {
    writeFileAtomic(file(path.join('charts', `${c.name}.vl.json`)), `${JSON.stringify(c.spec, null, 2)}\n`);
    writeFileAtomic(file(path.join('charts', `${c.name}.svg`)), await toSvg(c.spec));
  }
  return { charts, stability, context, curves, findings: [...reflectionFindings(stability), ...contextFindings(context)] };
}
