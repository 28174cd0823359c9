// Runs the parts of `bench perf` that were asked for and prints them.
import { CONCURRENCY_TARGET, concurrencyBench, type ConcurrencyBenchResult } from '../serve/concurrency-bench.ts';
import { GATEWAY_TARGET, gatewayLatencyBench, type GatewayLatencyResult } from './gateway-latency.ts';
import { importBench, type ImportBenchResult } from './import.ts';
import { agentLogsBench, type AgentLogImport } from './agent-logs.ts';
import { measureLinearity, type LinearityResult } from './linear.ts';
import { runMicro, type MicroResult } from './micro.ts';
import { measureOverhead, type OverheadResult } from './overhead.ts';
import { measureScale, scaleArgs, sweepFlags, type ScaleResult } from './scale.ts';
import { argvOf } from './sweep.ts';
import {
  agentLogRows,
  concurrencyRow,
  formatMicro,
  formatTargets,
  gatewayRows,
  importRows,
  linearRow,
  overheadRow,
  scaleRows,
  workersRows,
  type TargetRow,
} from './table.ts';
import { measureWorkers, type WorkersResult } from './workers.ts';

export interface PerfSizes {
  microMs: number;
  overheadRepeat: number;
  linearRepeat: number;
  scaleRepeat: number;
  concurrencyRuns: number;
  gatewayRequests: number;
  /** Rounds of the gateway's loads, every path in each. */
  gatewayRounds: number;
  /** Pairs of one-thread and N-worker sweeps the speed-up is the median of. */
  workerPairs: number;
  /** Agent steps of the trajectory `bench import` reads. */
  importSteps: number;
  /** Rounds of the import's floor, the import, and the import with its reports. */
  importRounds: number;
}

export interface PerfResults {
  sizes: PerfSizes;
  micro?: MicroResult[];
  overhead?: OverheadResult;
  linear?: LinearityResult;
  scale?: ScaleResult;
  concurrency?: ConcurrencyBenchResult;
  workers?: WorkersResult;
  gateway?: GatewayLatencyResult;
  import?: ImportBenchResult;
  agentLogs?: AgentLogImport[];
  targets: TargetRow[];
}

export async function runPerf(
  parts: ReadonlySet<string>,
  sizes: PerfSizes,
  log: (line: string) => void,
): Promise<PerfResults> {
  const out: PerfResults = { sizes, targets: [] };
  if (parts.has('micro')) {
    log('micro-benchmarks…');
    out.micro = await runMicro(sizes.microMs);
  }
  if (parts.has('overhead')) {
    log(`metering overhead: bench ${argvOf(sweepFlags(sizes.overheadRepeat)).join(' ')}, in process…`);
    out.overhead = await measureOverhead(sweepFlags(sizes.overheadRepeat));
    out.targets.push(overheadRow(out.overhead));
  }
  if (parts.has('linear')) {
    log('linearity: 10-step vs 100-step runs, same total steps…');
    out.linear = await measureLinearity(sizes.linearRepeat);
    out.targets.push(linearRow(out.linear));
  }
  if (parts.has('concurrency')) {
    const o = { ...CONCURRENCY_TARGET, runs: sizes.concurrencyRuns };
    log(
      `concurrency: ${o.runs} runs × ${o.steps} steps at --concurrency ${o.concurrency} against bench serve --latency ${o.latencyMs}…`,
    );
    out.concurrency = await concurrencyBench(o);
    out.targets.push(concurrencyRow(out.concurrency));
  }
  if (parts.has('gateway')) {
    const o = { ...GATEWAY_TARGET, requestsPerClient: sizes.gatewayRequests, rounds: sizes.gatewayRounds };
    log(
      `gateway: ${o.clients.join(' and ')} clients × ${o.requestsPerClient} requests at histories of ${o.histories.join(', ')} steps, ${o.rounds} round(s), straight to a stub upstream (--latency ${o.latencyMs}), through a pass-through proxy, through bench serve --upstream and, where installed, through the Portkey gateway…`,
    );
    out.gateway = await gatewayLatencyBench(o);
    out.targets.push(...gatewayRows(out.gateway));
  }
  if (parts.has('scale')) {
    log(`scale: bench ${scaleArgs(sizes.scaleRepeat, 'DIR').join(' ')} in a child process, then bench report DIR…`);
    out.scale = await measureScale(sizes.scaleRepeat);
    out.targets.push(...scaleRows(out.scale));
  }
  if (parts.has('workers')) {
    log(
      `workers: bench ${scaleArgs(sizes.scaleRepeat, 'DIR').join(' ')} --workers 1 and --workers N, ${sizes.workerPairs} pair(s) in process (the sweep timed), each followed by a sample of the machine's ceiling (N one-thread sweeps in child processes at once, and one alone), then --workers N in a child process (peak RSS)…`,
    );
    out.workers = await measureWorkers(sizes.scaleRepeat, sizes.workerPairs);
    out.targets.push(...workersRows(out.workers));
  }
  if (parts.has('import')) {
    log(
      `import: one ATIF trajectory of ${sizes.importSteps.toLocaleString('en-US')} agent steps, ${sizes.importRounds} round(s) of the floor, bench import --no-report and then with its reports, each import in a child process…`,
    );
    out.import = await importBench(sizes.importSteps, sizes.importRounds);
    out.targets.push(...importRows(out.import));
    log(
      `import: a Claude Code session and a Codex rollout of ${sizes.importSteps.toLocaleString('en-US')} lines each, bench import --no-report in a child process…`,
    );
    out.agentLogs = await agentLogsBench(sizes.importSteps);
    out.targets.push(...agentLogRows(out.agentLogs));
  }
  out.targets.sort((a, b) => a.target.localeCompare(b.target, 'en', { numeric: true }));
  return out;
}

export function printPerf(r: PerfResults): void {
  if (r.micro) console.log(`${formatMicro(r.micro)}\n`);
  if (r.targets.length) console.log(formatTargets(r.targets));
}
