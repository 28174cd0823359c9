// What the example framework agents' tools do (each agent declares their schemas its own
// framework's way): run Python for real, search canned pages, and report the usage the framework
// itself saw, so a test can hold it against what loopbench metered.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/** The agent's settings from `bench run --agent-cmd` (or defaults for a run by hand). */
export const env = {
  model: process.env.LOOPBENCH_MODEL ?? 'gpt-4o-mini',
  system: process.env.LOOPBENCH_SYSTEM || 'You are a careful assistant that solves tasks with tools.',
  goal: process.env.LOOPBENCH_GOAL ?? 'Compute the sum of squares of the integers from 1 to 100 and verify the result.',
  seed: process.env.LOOPBENCH_SEED ? Number(process.env.LOOPBENCH_SEED) : undefined,
  maxTurns: Number(process.env.AGENT_MAX_TURNS ?? 12),
};

/**
 * The tools' input schemas, as zod (what the AI SDK, LangChain and the Anthropic SDK all take): a
 * nested object, enums, optional and bounded integer fields. The Agents SDK's strict schemas need
 * nullable fields instead of optional ones, so it declares its own.
 */
export const codeInput = z.object({
  code: z.string().describe('The program to run.'),
  language: z.enum(['python']),
  limits: z.object({
    timeout_s: z.number().int().min(1).max(30),
    max_output_chars: z.number().int().min(100).max(4000).optional(),
  }),
});
export const searchInput = z.object({
  query: z.string().min(1).max(200),
  mode: z.enum(['web', 'news', 'papers']),
  filters: z.object({ site: z.string().optional(), year: z.number().int().min(1990).max(2030).optional() }).optional(),
});
export const CODE_DESCRIPTION = 'Run a Python 3 program and return what it prints.';
export const SEARCH_DESCRIPTION = 'Search the web.';

let python;
/**
 * The `python3` to run: the file PATH names, or, when that is a script (a version manager's shim, such as
 * pyenv's, which costs ~0.3 s of CPU a start), the interpreter it starts, asked once per agent process.
 */
function python3() {
  python ??= found('python3') ?? 'python3';
  return python;
}

function found(name) {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const file = path.join(dir || '.', name);
    const head = Buffer.alloc(2);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      const fd = fs.openSync(file, 'r');
      try {
        fs.readSync(fd, head, 0, 2, 0);
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      continue; // not here (or a directory): the next one
    }
    if (head.toString('latin1') !== '#!') return file;
    try {
      return (
        execFileSync(file, ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8', timeout: 10_000 }).trim() ||
        file
      );
    } catch {
      return file; // its own error, at each call
    }
  }
  return null;
}

/** execute_code: Python 3, 10 s (or limits.timeout_s), the last max_output_chars characters of what it printed. */
export function executeCode({ code, limits }) {
  const cap = limits?.max_output_chars ?? 2000;
  try {
    return (
      execFileSync(python3(), ['-c', code], { encoding: 'utf8', timeout: (limits?.timeout_s ?? 10) * 1000 }).slice(
        -cap,
      ) || '(no output)'
    );
  } catch (e) {
    return `Error: ${String(e.stderr || e.message).slice(-cap)}`;
  }
}

/** search: a canned result page per query (no network). */
export function search({ query, mode }) {
  return `${mode ?? 'web'} results for "${query}": 1. An overview of ${query}. 2. A worked example. 3. A list of sources.`;
}

/** Writes the usage the framework reported per model call to AGENT_USAGE_DIR/<run id>.json (when set). */
export function reportUsage(calls) {
  const dir = process.env.AGENT_USAGE_DIR;
  if (!dir) return;
  fs.writeFileSync(path.join(dir, `${process.env.LOOPBENCH_RUN_ID ?? 'run'}.json`), JSON.stringify(calls));
}

/** The agent's answer as loopbench reads it: one JSON line. */
export const answer = (text) => console.log(JSON.stringify({ answer: text }));

/** A stop at the gateway (a brake's 403) or any other failure: said on stderr, exit 3. */
export function fail(e) {
  console.error(`stopped: ${e?.message ?? e}`);
  process.exit(3);
}
