// The `bench perf` report: each target with what was measured, its limit and measured ÷ limit.
import type { ConcurrencyBenchResult } from '../serve/concurrency-bench.ts';
import type { LinearityResult } from './linear.ts';
import type { MicroResult } from './micro.ts';
import type { OverheadResult } from './overhead.ts';
import type { ScaleResult } from './scale.ts';

export interface TargetRow {
  target: string;
  measured: string;
  value: number;
  limit: number;
  /** value ÷ limit: at most 1 meets the target. */
  ratio: number;
  ok: boolean;
}

const row = (target: string, measured: string, value: number, limit: number): TargetRow => ({ target, measured, value, limit, ratio: value / limit, ok: value <= limit });
const f = (x: number, digits = 0) => x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function overheadRow(o: OverheadResult): TargetRow {
  const harness = (o.harnessUsPerStep * o.sweep.steps) / 1000;
  return row(
    '1. metering overhead: sweep ÷ tokenizing its new text once (CPU)',
    `sweep ${f(o.sweep.cpuMs)} ms (${f(o.sweep.steps)} steps) ÷ tokenize ${f(o.tokenize.cpuMs)} ms (${f(o.tokenized)} messages, ${f(o.tokens)} tokens): ${f(o.ratio, 2)} (wall: ${f(o.wallRatio, 2)}); over tokenizing: harness ${f(harness)} ms (${f(o.harnessUsPerStep, 1)} µs/step, meter not tokenizing), meter bookkeeping, GC and cache contention ${f(o.sweep.cpuMs - o.tokenize.cpuMs - harness)} ms`,
    o.ratio,
    1.25,
  );
}

export function linearRow(l: LinearityResult): TargetRow {
  return row(
    '2. linear: CPU per step at 100 steps ÷ at 10 steps',
    `${f(l.perStepLong * 1000)} µs ÷ ${f(l.perStepShort * 1000)} µs = ${f(l.ratio, 2)}`,
    l.ratio,
    1.5,
  );
}

/** Efficiency is better when larger: the row compares its shortfall (1 − efficiency) with the allowed 0.1. */
export function concurrencyRow(c: ConcurrencyBenchResult): TargetRow {
  return row(
    `4. concurrency: 1 − achieved ÷ ideal throughput vs bench serve --latency ${c.latencyMs} at --concurrency ${c.concurrency}`,
    `${f(c.calls)} calls in ${f(c.measuredS, 2)} s (ideal ${f(c.idealS, 2)} s): efficiency ${f(100 * c.efficiency, 1)}%, ${c.errors} errored runs`,
    1 - c.efficiency,
    0.1,
  );
}

export function scaleRows(s: ScaleResult): TargetRow[] {
  return [
    row(
      '3. scale: peak RSS of the sweep (MB)',
      `${f(s.runs)} runs, ${f(s.calls)} calls in ${f(s.sweep.ms / 1000, 1)} s wall (${f(s.sweep.cpuMs / 1000, 1)} s CPU) = ${f(s.callsPerSecond)} calls/s (${f(s.calls / (s.sweep.cpuMs / 1000))} per CPU-second); peak RSS ${f(s.sweep.peakRssMb)} MB`,
      s.sweep.peakRssMb,
      300,
    ),
    row(
      '5. report generation: bench report on that sweep (CPU s)',
      `${f(s.report.cpuMs / 1000, 1)} s CPU (${f(s.report.ms / 1000, 1)} s wall), peak RSS ${f(s.report.peakRssMb)} MB`,
      s.report.cpuMs / 1000,
      10,
    ),
  ];
}

function table(head: string[], rows: string[][], right: (i: number) => boolean): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((v, i) => (right(i) ? v.padStart(widths[i]!) : v.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export function formatTargets(rows: TargetRow[]): string {
  return table(
    ['target', 'measured', 'limit', 'ratio', 'ok'],
    rows.map((r) => [r.target, r.measured, f(r.limit, 2), f(r.ratio, 2), r.ok ? 'yes' : 'NO']),
    (i) => i === 2 || i === 3,
  );
}

export function formatMicro(rows: MicroResult[]): string {
  return table(
    ['task', 'median µs', 'mean µs', 'ops/s', 'samples'],
    rows.map((r) => [r.name, f(r.medianUs, 2), f(r.meanUs, 2), f(r.opsPerSecond), f(r.samples)]),
    (i) => i > 0,
  );
}
