// `bench`: the command-line entry point. Every command lives in its own file under src/cli/.
import { runCli } from './program.ts';

const code = await runCli(process.argv.slice(2));
// Errors end at once (nothing useful is left running); a finished or interrupted sweep ends
// naturally, so its output drains first.
if (code === 1 || code === 2) process.exit(code);
process.exitCode = code;
