// The `bench perf` report: each target with what was measured, its limit and how much of the limit it uses.
import type { ConcurrencyBenchResult } from '../serve/concurrency-bench.ts';
import type { GatewayLatencyResult } from './gateway-latency.ts';
import type { LinearityResult } from './linear.ts';
import type { MicroResult } from './micro.ts';
import type { OverheadResult } from './overhead.ts';
import type { ScaleResult } from './scale.ts';
import type { WorkersResult } from './workers.ts';

export interface TargetRow {
  target: string;
  /** The headline figure, with its unit. */
  measured: string;
  /** The limit, with its unit and direction: `≤ 1.25`, `≥ 90 %`. */
  limitText: string;
  /** How it was obtained and what it is made of (printed under the table). */
  detail: string;
  value: number;
  limit: number;
  /** Whether the target is a ceiling (value ≤ limit) or a floor (value ≥ limit). */
  at: 'most' | 'least';
  /** How far the target is used: value ÷ limit for a ceiling, limit ÷ value for a floor; at most 1 meets it. */
  ratio: number;
  ok: boolean;
}

import { IMPORT_TARGET, type ImportBenchResult, type ImportRound } from './import.ts';
import { median } from '../stats/quantile.ts';
import { AGENT_LOG_PEAK_RSS_MB, type AgentLogImport } from './agent-logs.ts';

const f = (x: number, digits = 0) =>
  x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** A row from its figure and limit, both shown with `unit` (the figure as a plain ratio by default). */
function row(
  o: Pick<TargetRow, 'target' | 'detail' | 'value' | 'limit' | 'at'> & { unit?: (x: number) => string },
): TargetRow {
  const { unit = (x: number) => f(x, 2), ...rest } = o;
  const ratio = o.at === 'most' ? o.value / o.limit : o.limit / o.value;
  return {
    ...rest,
    measured: unit(o.value),
    limitText: `${o.at === 'most' ? '≤' : '≥'} ${unit(o.limit)}`,
    ratio,
    ok: ratio <= 1,
  };
}

export function overheadRow(o: OverheadResult): TargetRow {
  const harness = (o.harnessUsPerStep * o.sweep.steps) / 1000;
  return row({
    target: '1. metering overhead: sweep ÷ tokenizing its new text once (CPU)',
    detail: `sweep ${f(o.sweep.cpuMs)} ms CPU (${f(o.sweep.steps)} steps) ÷ tokenizing its ${f(o.tokenized)} messages (${f(o.tokens)} tokens) once ${f(o.tokenize.cpuMs)} ms; wall-clock ratio ${f(o.wallRatio, 2)}. Over tokenizing: the harness alone ${f(harness)} ms (${f(o.harnessUsPerStep, 1)} µs a step, timed with a meter that does not tokenize); meter bookkeeping, GC and cache contention ${f(o.sweep.cpuMs - o.tokenize.cpuMs - harness)} ms.`,
    value: o.ratio,
    limit: 1.25,
    at: 'most',
  });
}

export function importRows(r: ImportBenchResult): TargetRow[] {
  const rs = r.rounds;
  const s = (ms: number) => `${f(ms / 1000, 1)} s`;
  const times = (x: number) => `${f(x, 1)}×`;
  const across = (pick: (x: ImportRound) => number, unit: (x: number) => string) => spread(rs.map(pick), unit);
  const floor = across((x) => x.floorCpuMs, s);
  const over = `${rs.length} round(s), each the floor, the import and the import with reports in turn; figures min–median–max over rounds`;
  // The reports' share is a difference of two imports of the same round: the machine's noise can exceed it.
  const reportsCpu = rs.map((x) => x.reported.cpuMs - x.run.cpuMs);
  const noisy = reportsCpu.some((ms) => ms < 0)
    ? ', a round below 0 s where the import with reports took less CPU than the one without: the machine, not the reports'
    : '';
  return [
    row({
      target: `11. import: steps/s of one ${f(r.steps)}-step ATIF trajectory (bench import --no-report, wall)`,
      unit: (x) => f(x),
      detail: `${f(r.fileMb, 1)} MB in ${across((x) => x.run.ms, s)} wall, ${across((x) => x.run.cpuMs, s)} CPU (${across((x) => r.steps / (x.run.cpuMs / 1000), f)} steps/s of CPU); the floor, reading the same steps as JSON lines and parsing each, ${floor} CPU in this process: the import is ${across((x) => x.run.cpuMs / x.floorCpuMs, times)} its round's floor (${over}).`,
      value: median(rs.map((x) => x.stepsPerSecond)),
      limit: IMPORT_TARGET.stepsPerSecond,
      at: 'least',
    }),
    row({
      target: `12. import: peak RSS of that import, the highest of its rounds`,
      unit: (x) => `${f(x)} MB`,
      detail: `bench import of the ${f(r.fileMb, 1)} MB file in a child process (${across((x) => x.run.peakRssMb, f)} MB): memory held is one step at a time, where each step is in the file (12 bytes a step), the run's sums, and Node's own.`,
      value: Math.max(...rs.map((x) => x.run.peakRssMb)),
      limit: IMPORT_TARGET.peakRssMb,
      at: 'most',
    }),
    row({
      target: `13. import with reports: CPU ÷ its round's floor, median (bench import, its reports and default what-if)`,
      unit: times,
      detail: `the same file imported with its reports: ${across((x) => x.reported.ms, s)} wall, ${across((x) => x.reported.cpuMs, s)} CPU, against the floor's ${floor} CPU: ${across((x) => x.reported.cpuMs / x.floorCpuMs, times)} (without reports ${across((x) => x.run.cpuMs, s)}: the reports take ${spread(reportsCpu, s)}${noisy}; ${over}).`,
      value: median(rs.map((x) => x.reported.cpuMs / x.floorCpuMs)),
      limit: IMPORT_TARGET.reportedFloorRatio,
      at: 'most',
    }),
    row({
      target: `14. import with reports: peak RSS, the highest of its rounds`,
      unit: (x) => `${f(x)} MB`,
      detail: `that import in a child process (${across((x) => x.reported.peakRssMb, f)} MB): the reports' step pass is fed as the import writes steps.jsonl (read back only for a what-if's replayed steps, or whole when its lines are out of plan order); what is held is each run's facts, per-step-index sums as columns, and, for a what-if, the replayed part of each step.`,
      value: Math.max(...rs.map((x) => x.reported.peakRssMb)),
      limit: IMPORT_TARGET.reportedPeakRssMb,
      at: 'most',
    }),
  ];
}

/** Rows 15–16: a million-line coding-agent log of each format, its peak RSS; a miscount fails the row whatever its memory. */
export function agentLogRows(logs: AgentLogImport[]): TargetRow[] {
  const names = { 'claude-code': 'Claude Code session', codex: 'Codex rollout' };
  return logs.map((l, i) => {
    const r = row({
      target: `${15 + i}. import: a ${f(l.lines)}-line ${names[l.format]}, every call and token counted; peak RSS`,
      unit: (x) => `${f(x)} MB`,
      detail: `bench import --format ${l.format} --no-report --skip-bad of the ${f(l.fileMb, 1)} MB log in a child process: ${f(l.run.ms / 1000, 1)} s wall, ${f(l.run.cpuMs / 1000, 1)} s CPU; ${l.exact ? 'the run record totals every call and token once, nothing skipped' : `MISCOUNTED: ${l.problem}`}.`,
      value: l.run.peakRssMb,
      limit: AGENT_LOG_PEAK_RSS_MB,
      at: 'most',
    });
    return { ...r, ok: r.ok && l.exact };
  });
}

export function linearRow(l: LinearityResult): TargetRow {
  return row({
    target: '2. linear: CPU per step at 100 steps ÷ at 10 steps',
    detail: `${f(l.perStepLong * 1000)} µs a step in 100-step runs ÷ ${f(l.perStepShort * 1000)} µs in 10-step runs.`,
    value: l.ratio,
    limit: 1.5,
    at: 'most',
  });
}

export function concurrencyRow(c: ConcurrencyBenchResult): TargetRow {
  return row({
    target: `4. concurrency: achieved ÷ ideal throughput (bench serve --latency ${c.latencyMs}, --concurrency ${c.concurrency})`,
    unit: (x) => `${f(100 * x, 1)} %`,
    detail: `${f(c.calls)} calls in ${f(c.measuredS, 2)} s against an ideal ${f(c.idealS, 2)} s; ${c.errors} errored runs.`,
    value: c.efficiency,
    limit: 0.9,
    at: 'least',
  });
}

const spread = (xs: number[], unit: (x: number) => string) =>
  xs.length > 1 ? `${unit(Math.min(...xs))}–${unit(median(xs))}–${unit(Math.max(...xs))}` : unit(xs[0] ?? NaN);

/**
 * The gateway against the pass-through proxy measured in the same rounds, per client count and
 * history: CPU per request (and against Portkey's, when it ran), then added latency p50 and p99.
 * Each row is the median over rounds; its detail gives min–median–max.
 */
export function gatewayRows(g: GatewayLatencyResult): TargetRow[] {
  const ms = (x: number) => `${f(x, 2)} ms`;
  const times = (x: number) => `${f(x, 2)}×`;
  const cpuRatio = (a: number | null, b: number | null) => (a !== null && b !== null ? a / b : NaN);
  type Load = GatewayLatencyResult['loads'][number];
  const added = (p: 'p50' | 'p99', l: Load, via: 'gateway' | 'proxy' | 'portkey') => l[via]![p] - l.direct[p];
  const configs = g.clients.flatMap((clients) => g.histories.map((steps) => ({ clients, steps })));
  const of = (c: { clients: number; steps: number }) =>
    g.loads.filter((l) => l.clients === c.clients && l.steps === c.steps);
  const at = (c: { clients: number; steps: number }) =>
    `${c.clients} client${c.clients === 1 ? '' : 's'}, ${c.steps}-step history`;
  const lines = configs.map((c) => {
    const ls = of(c);
    const cpu = (via: 'gateway' | 'proxy' | 'portkey') => ls.map((l) => l[via]?.cpuMs ?? NaN);
    const portkey = ls.every((l) => l.portkey)
      ? `; Portkey CPU per request ${spread(cpu('portkey'), ms)} (${spread(
          ls.map((l) => cpuRatio(l.portkey!.cpuMs, l.proxy.cpuMs)),
          times,
        )} the proxy's), added p50 ${spread(
          ls.map((l) => added('p50', l, 'portkey')),
          ms,
        )}, p99 ${spread(
          ls.map((l) => added('p99', l, 'portkey')),
          ms,
        )}`
      : '';
    return (
      `${at(c)} (${f((ls[0]?.requestBytes ?? 0) / 1024, 1)} KB a request): CPU per request ${spread(cpu('gateway'), ms)} against the proxy's ${spread(cpu('proxy'), ms)}, ratio ${spread(
        ls.map((l) => cpuRatio(l.gateway.cpuMs, l.proxy.cpuMs)),
        times,
      )}; ` +
      `added p50 ${spread(
        ls.map((l) => added('p50', l, 'gateway')),
        ms,
      )} (proxy ${spread(
        ls.map((l) => added('p50', l, 'proxy')),
        ms,
      )}), p99 ${spread(
        ls.map((l) => added('p99', l, 'gateway')),
        ms,
      )} (proxy ${spread(
        ls.map((l) => added('p99', l, 'proxy')),
        ms,
      )}); direct p50 ${spread(
        ls.map((l) => l.direct.p50),
        ms,
      )}` +
      portkey
    );
  });
  const c = g.capacity;
  const cpu = (x: number | null) => (x === null ? 'n/a' : ms(x));
  const detail =
    `${g.requestsPerClient} requests per client, a step longer each time, a fresh run each, against a stub upstream answering after ${g.latencyMs} ms; straight to it, through a trivial Node pass-through proxy, through bench serve --upstream` +
    `${g.portkey ? ` and through the Portkey gateway ${g.portkey}` : ''}, each in its own process (CPU from /proc), interleaved, ${g.rounds} round(s); figures min–median–max over rounds. ` +
    `${g.portkey ? '' : 'Portkey (@portkey-ai/gateway) not installed: skipped. '}` +
    `${g.loadAverage ? `Load average (1, 5, 15 min) ${g.loadAverage.before} before, ${g.loadAverage.after} after. ` : ''}` +
    `${lines.join('; ')}. ` +
    `In front of an upstream with no latency, at ${c.steps} steps: the gateway sustained ${f(c.gateway)} requests/s (${cpu(c.gatewayCpuMs)} CPU a request), the proxy ${f(c.proxy)} (${cpu(c.proxyCpuMs)}). Gateway peak RSS ${g.gatewayPeakRssMb === null ? 'n/a' : `${f(g.gatewayPeakRssMb)} MB`}; ${g.errors} errors.`;
  const n = configs.length;
  const rows = (make: (c: (typeof configs)[number], ls: Load[], i: number) => TargetRow | null) =>
    configs.map((c, i) => make(c, of(c), i)).filter((r): r is TargetRow => r !== null);
  return [
    ...rows((c, ls, i) =>
      row({
        target: `8.${i + 1} gateway: CPU per request ÷ pass-through proxy's (${at(c)})`,
        unit: times,
        detail: i === 0 ? detail : 'as 8.1.',
        value: median(ls.map((l) => cpuRatio(l.gateway.cpuMs, l.proxy.cpuMs))),
        limit: 2,
        at: 'most',
      }),
    ),
    ...rows((c, ls, i) =>
      g.portkey && ls.every((l) => l.portkey)
        ? row({
            target: `8.${n + i + 1} gateway: CPU per request ÷ Portkey's (${at(c)})`,
            unit: times,
            detail: 'as 8.1.',
            value: median(ls.map((l) => cpuRatio(l.gateway.cpuMs, l.portkey!.cpuMs))),
            limit: 1,
            at: 'most',
          })
        : null,
    ),
    ...rows((c, ls, i) =>
      row({
        target: `9.${i + 1} gateway: added latency, median (${at(c)})`,
        unit: ms,
        detail: 'as 8.1.',
        value: Math.max(0, median(ls.map((l) => added('p50', l, 'gateway')))),
        limit: 0.5,
        at: 'most',
      }),
    ),
    ...rows((c, ls, i) =>
      row({
        target: `10.${i + 1} gateway: added latency, p99 (${at(c)})`,
        unit: ms,
        detail: 'as 8.1.',
        value: Math.max(0, median(ls.map((l) => added('p99', l, 'gateway')))),
        limit: 2,
        at: 'most',
      }),
    ),
  ];
}

export function scaleRows(s: ScaleResult): TargetRow[] {
  return [
    row({
      target: '3. scale: peak RSS of the sweep',
      unit: (x) => `${f(x)} MB`,
      detail: `${f(s.runs)} runs, ${f(s.calls)} calls in ${f(s.sweep.ms / 1000, 1)} s wall (${f(s.sweep.cpuMs / 1000, 1)} s CPU): ${f(s.callsPerSecond)} calls/s (${f(s.calls / (s.sweep.cpuMs / 1000))} per CPU-second).`,
      value: s.sweep.peakRssMb,
      limit: 300,
      at: 'most',
    }),
    row({
      target: '5. report generation: bench report on that sweep (CPU)',
      unit: (x) => `${f(x, 1)} s`,
      detail: `${f(s.report.cpuMs / 1000, 1)} s CPU, ${f(s.report.ms / 1000, 1)} s wall; peak RSS ${f(s.report.peakRssMb)} MB.`,
      value: s.report.cpuMs / 1000,
      limit: 10,
      at: 'most',
    }),
  ];
}

/** Speed-up against 90 % of the ideal (N workers on N cores: N×), so 1.8× on 2 cores; and the memory all threads take. */
export function workersRows(w: WorkersResult): TargetRow[] {
  const { one, many, speedUp } = w.median;
  const ratios = w.pairs.map((p) => `${f(p.speedUp, 2)}×`).join(', ');
  return [
    row({
      target: `6. workers: scale sweep wall time, 1 thread ÷ ${w.workers} threads`,
      unit: (x) => `${f(x, 2)}×`,
      detail: `${f(many.runs)} runs, ${f(many.calls)} calls; the median of ${w.pairs.length} back-to-back pair(s), order alternating (${ratios}): ${f(one.ms / 1000, 1)} s on 1 thread, ${f(many.ms / 1000, 1)} s on ${w.workers} (this thread and ${w.workers - 1} worker${w.workers === 2 ? '' : 's'}); ideal ${f(w.workers, 2)}× (${w.workers} available cores); target 90 % of it. CPU: ${f(one.cpuMs / 1000, 1)} s on 1 thread, ${f(many.cpuMs / 1000, 1)} s on ${w.workers} (a worker's start-up and JIT warm-up, its messages, and the cores slowing each other: see docs/performance.md), so on otherwise idle cores the speed-up is at most ${f((w.workers * one.cpuMs) / many.cpuMs, 2)}×. This machine's own ceiling, one sample after each pair (${w.workers} independent one-thread processes running the same sweep phase at once against one alone): ${w.ceilings.map((c) => `${f(c.speedUp, 2)}×`).join(', ')}; the median sample took ${f(Math.max(...w.ceiling.together.map((t) => t.ms)) / 1000, 1)} s against ${f(w.ceiling.alone.ms / 1000, 1)} s for one alone, ${f(w.ceiling.speedUp, 2)}× the throughput; the workers reached ${f((100 * speedUp) / w.ceiling.speedUp)} % of it.`,
      value: speedUp,
      limit: 0.9 * w.workers,
      at: 'least',
    }),
    row({
      target: `7. workers: peak RSS with ${w.workers} threads (all threads)`,
      unit: (x) => `${f(x)} MB`,
      detail: `the scale sweep --workers ${w.workers} in a child process: ${f(w.child.ms / 1000, 1)} s wall with its reports; the main thread and its ${w.workers - 1} worker${w.workers === 2 ? '' : 's'}, all counting tokens against one shared rank table (~10 MB).`,
      value: w.child.peakRssMb,
      limit: 300,
      at: 'most',
    }),
  ];
}

function table(head: string[], rows: string[][], right: (i: number) => boolean): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r
      .map((v, i) => (right(i) ? v.padStart(widths[i]!) : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** The targets as a table of headline figures, then each row's detail as a numbered note under it. */
export function formatTargets(rows: TargetRow[]): string {
  const head = table(
    ['target', 'measured', 'limit', 'ratio', 'ok'],
    rows.map((r) => [r.target, r.measured, r.limitText, f(r.ratio, 2), r.ok ? 'yes' : 'NO']),
    (i) => i >= 1 && i <= 3,
  );
  const notes = rows.map((r) => `${r.target.split(' ')[0]} ${r.detail}`);
  return `${head}\n\n${notes.join('\n')}`;
}

export function formatMicro(rows: MicroResult[]): string {
  return table(
    ['task', 'median µs', 'mean µs', 'ops/s', 'samples'],
    rows.map((r) => [r.name, f(r.medianUs, 2), f(r.meanUs, 2), f(r.opsPerSecond), f(r.samples)]),
    (i) => i > 0,
  );
}
