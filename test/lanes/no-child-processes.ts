// The fast lane's promise: no test in it starts another program. Every way node:child_process has of
// starting one is replaced by a refusal that is also remembered, so a test that catches the error (or
// code under test that swallows it) still fails when its file ends (test/lanes/fast-setup.ts).
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

const STARTERS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;
type Starter = (typeof STARTERS)[number];

/**
 * meta.json records the checkout's commit with one `git rev-parse HEAD` per process (src/results/meta.ts):
 * a few milliseconds, not a program under test, so an in-process sweep may still write its directory.
 */
const allowed = (name: Starter, args: unknown[]) =>
  name === 'execFileSync' && args[0] === 'git' && JSON.stringify(args[1]) === JSON.stringify(['rev-parse', 'HEAD']);

/** What was refused since the guard went up: one line per attempt, naming the call. */
export const refused: string[] = [];

/** Puts the guard up; the function it returns takes it down again (for the test that checks the guard). */
export function forbidChildProcesses(): () => void {
  const cp = childProcess as unknown as Record<Starter, (...args: unknown[]) => unknown>;
  const originals = Object.fromEntries(STARTERS.map((name) => [name, cp[name]])) as Record<
    Starter,
    (...args: unknown[]) => unknown
  >;
  for (const name of STARTERS) {
    cp[name] = (...args: unknown[]) => {
      if (allowed(name, args)) return originals[name](...args);
      const what = `child_process.${name}(${JSON.stringify(args[0])})`;
      refused.push(what);
      throw new Error(
        `${what}: the fast lane starts no other program; list this test file under FULL_ONLY in test/lanes.ts`,
      );
    };
  }
  // Named imports (`import { spawn } from 'node:child_process'`) see the replacements too.
  syncBuiltinESMExports();
  return () => {
    Object.assign(cp, originals);
    syncBuiltinESMExports();
  };
}
