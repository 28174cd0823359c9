// `bench perf`: is loopbench itself fast and small enough? Micro-benchmarks of the hot operations
// (tinybench) and whole-sweep measurements against the performance targets.
import type { Command } from 'commander';
import { parseChoiceList, parseOne } from '../runner/values.ts';

export const PERF_PARTS = [
  'micro',
  'overhead',
  'linear',
  'concurrency',
  'gateway',
  'scale',
  'workers',
  'import',
] as const;
type Part = (typeof PERF_PARTS)[number];

interface PerfOptions {
  only: string;
  repeat: string;
  rounds?: string;
  quick?: boolean;
  json?: boolean;
}

/** Sizes of every measurement; `--quick` shrinks them for a smoke test (figures then not comparable with the targets). */
export function perfSizes(quick: boolean, scaleRepeat: number) {
  return quick
    ? {
        microMs: 50,
        overheadRepeat: 1,
        linearRepeat: 1,
        concurrencyRuns: 16,
        gatewayRequests: 2,
        gatewayRounds: 1,
        scaleRepeat,
        workerPairs: 1,
        importSteps: 20_000,
        importRounds: 1,
      }
    : {
        microMs: 500,
        overheadRepeat: 10,
        linearRepeat: 10,
        concurrencyRuns: 100,
        gatewayRequests: 10,
        gatewayRounds: 3,
        scaleRepeat,
        workerPairs: 5,
        importSteps: 1_000_000,
        importRounds: 3,
      };
}

export function registerPerf(program: Command): void {
  program
    .command('perf')
    .description("measure loopbench's own speed and memory against its performance targets (see docs/performance.md)")
    .option('--only <parts>', `what to measure, comma-separated: ${PERF_PARTS.join(', ')}`, PERF_PARTS.join(','))
    .option(
      '-n, --repeat <n>',
      'runs per configuration of the scale sweep (seed-calibrated, --steps 10..100:10; also the workers sweep)',
      '100',
    )
    .option(
      '--rounds <n>',
      'rounds of the gateway and import measurements, every path or import in each, the rows their medians (default 3; 1 with --quick): more on a noisy machine',
    )
    .option('--quick', 'small sizes everywhere: a smoke test, not a measurement against the targets')
    .option('--json', 'print the results as JSON on stdout')
    .action(async (o: PerfOptions, cmd: Command) => {
      const parts = new Set<Part>(parseChoiceList(o.only, '--only', PERF_PARTS));
      const repeat = parseOne(o.repeat, '--repeat', { integer: true, min: 1, max: 100_000 });
      const defaultRepeat = cmd.getOptionValueSource('repeat') === 'default';
      const sizes = perfSizes(o.quick ?? false, o.quick && defaultRepeat ? 2 : repeat);
      if (o.rounds !== undefined)
        sizes.gatewayRounds = sizes.importRounds = parseOne(o.rounds, '--rounds', { integer: true, min: 1, max: 100 });
      const { runPerf, printPerf } = await import('../perf/run.ts');
      const results = await runPerf(parts, sizes, (line) => !o.json && console.error(line));
      if (o.json) console.log(JSON.stringify(results, null, 2));
      else printPerf(results);
    });
}
