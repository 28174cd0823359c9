// `bench`: the command-line entry point. Every command lives in its own file under src/cli/.
import { Command, CommanderError } from 'commander';
import { UsageError } from './errors.ts';
import { registerRun } from './run.ts';
import { registerScenarios } from './scenarios.ts';
import { registerReport } from './report.ts';
import { registerCheck } from './check.ts';
import { registerMerge } from './merge.ts';
import { registerPerf } from './perf.ts';
import { registerServe } from './serve.ts';

const program = new Command('bench')
  .description('loopbench: measure what LLM agent loops cost and whether they stop.')
  .option('--debug', 'show stack traces for errors')
  .showHelpAfterError('(run bench --help for usage)')
  .exitOverride()
  .addHelpText('after', '\nWith no command, bench runs a sweep: `bench --steps 12,30`. See `bench run --help` for its options.');

registerRun(program);
registerScenarios(program);
registerReport(program);
registerCheck(program);
registerMerge(program);
registerPerf(program);
registerServe(program);

const debug = process.argv.includes('--debug');

try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof CommanderError) {
    // Commander has printed its message already; help and version are not errors.
    process.exit(e.exitCode === 0 ? 0 : 2);
  }
  if (e instanceof UsageError) {
    console.error(`bench: ${e.message}`);
    if (debug) console.error(e.stack);
    process.exit(2);
  }
  console.error(`bench: ${e instanceof Error ? e.message : String(e)}`);
  if (debug) console.error(e instanceof Error ? e.stack : e);
  else console.error('(run again with --debug for the stack trace)');
  process.exit(1);
}
