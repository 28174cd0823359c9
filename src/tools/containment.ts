// How run_python is contained on this machine. With bubblewrap (Debian: apt-get install bubblewrap)
// and namespaces allowed, the code runs with no network, a read-only file system except its own
// temporary directory, and its own PID namespace (when the interpreter ends or is killed, the
// kernel ends everything it started). Without it: its own process group, and a sweep of the
// processes that carry its tag (see python-sandbox.ts).
import { execFileSync } from 'node:child_process';

export type Containment = 'bwrap' | 'process-group';

let detected: Containment | undefined;

/** bubblewrap if it is installed and can create its namespaces here (a container may forbid it); checked once. */
export function detectContainment(): Containment {
  if (detected === undefined) {
    try {
      execFileSync('bwrap', [...BWRAP_ISOLATION, '--', 'true'], { stdio: 'ignore', timeout: 10_000 });
      detected = 'bwrap';
    } catch {
      detected = 'process-group';
    }
  }
  return detected;
}

/** Namespaces and mounts: no network, everything read-only, /tmp empty, own /proc for the own PID namespace. */
export const BWRAP_ISOLATION = [
  '--unshare-all',
  '--die-with-parent',
  '--new-session',
  '--ro-bind',
  '/',
  '/',
  '--dev',
  '/dev',
  '--proc',
  '/proc',
  '--tmpfs',
  '/tmp',
];

/** The command that runs `argv` in bubblewrap with `dir` as its one writable directory. */
export const inBwrap = (dir: string, argv: string[]) =>
  ['bwrap', [...BWRAP_ISOLATION, '--bind', dir, dir, '--chdir', dir, '--', ...argv]] as const;

/** One line for the user: what protects them when a scenario runs run_python. */
export function describeContainment(c: Containment = detectContainment()): string {
  return c === 'bwrap'
    ? 'run_python runs under bubblewrap: no network, read-only file system except its temporary directory, its own PID namespace, allow-listed environment'
    : 'run_python runs without bubblewrap (not installed, or namespaces not allowed here): own process group, allow-listed environment, but with your network and a writable file system (apt-get install bubblewrap to isolate it)';
}
