// The `bench` program as a function of its arguments, so tests can drive every command in-process;
// main.ts only wires it to the real process. A fresh Command each time: commander keeps parsed state.
import { Command, CommanderError } from 'commander';
import { UsageError } from '../contracts/errors.ts';
import { registerRun } from './run.ts';
import { registerScenarios } from './scenarios.ts';
import { registerReport } from './report.ts';
import { registerPerf } from './perf.ts';
import { registerServe } from './serve.ts';
import { registerCheck } from './check.ts';
import { registerMerge } from './merge.ts';
import { registerImport } from './import.ts';
import { registerExport } from './export.ts';
import { registerDiff } from './diff.ts';
import { registerInit } from './init.ts';
import { ownVersion } from '../contracts/paths.ts';

/** Commander's own errors (unknown flag, missing value) as one line, like every other bad input. */
function oneLineErrors(help: string) {
  return {
    outputError: (text: string, write: (s: string) => void) =>
      write(
        `bench: ${text
          .replace(/^error: /, '')
          .trim()
          .replace(/\s*\n\s*/g, ' ')} (run ${help} for usage)\n`,
      ),
  };
}

export function buildProgram(): Command {
  const program = new Command('bench')
    .description('loopbench: measure what LLM agent loops cost and whether they stop.')
    .version(ownVersion(), '-V, --version', 'print the version of loopbench (the loopbench-cli package)')
    .option('--debug', 'show stack traces for errors')
    .configureOutput(oneLineErrors('bench --help'))
    .exitOverride()
    .addHelpText(
      'after',
      '\nWith no command, bench runs a sweep: `bench --steps 12,30`. See `bench run --help` for its options.',
    );
  registerRun(program);
  registerScenarios(program);
  registerReport(program);
  registerPerf(program);
  registerServe(program);
  registerCheck(program);
  registerMerge(program);
  registerImport(program);
  registerExport(program);
  registerDiff(program);
  registerInit(program);
  // A command's bad flag points to that command's help, where its flags are listed.
  for (const command of program.commands) command.configureOutput(oneLineErrors(`bench ${command.name()} --help`));
  return program;
}

/**
 * Runs `bench` with the given arguments (without node and the script) and returns the exit code:
 * 0 done, 2 bad input (one line, no stack unless --debug), 1 an unexpected failure, 130/143 a sweep
 * interrupted by SIGINT/SIGTERM (set by the run command).
 */
export async function runCli(args: string[]): Promise<number> {
  const debug = args.includes('--debug');
  const before = process.exitCode;
  try {
    await buildProgram().parseAsync(args, { from: 'user' });
    // An interrupted sweep reports itself through process.exitCode; hand it back, leave no trace.
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (e) {
    // Commander has printed its message already; help and version are not errors.
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    if (e instanceof UsageError) {
      console.error(`bench: ${e.message}`);
      if (debug) console.error(e.stack);
      return 2;
    }
    console.error(`bench: ${e instanceof Error ? e.message : String(e)}`);
    if (debug) console.error(e instanceof Error ? e.stack : e);
    else console.error('(run again with --debug for the stack trace)');
    return 1;
  } finally {
    process.exitCode = before;
  }
}
