// Processes a test's code starts, found from outside by a name only they have: `sleep <unique seconds>`
// (PIDs mean nothing out here when the code runs in its own PID namespace). Tests wait for such a
// process to end, never for a fixed time.
import fs from 'node:fs';

/** A number of seconds no other process on the machine sleeps for (and long enough to outlive any test). */
export const uniqueSleep = () => `${100_000 + Math.floor(Math.random() * 800_000)}.${process.pid}`;

/** Running means not gone and not a zombie (a killed orphan may wait for a reaper as Z). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) [ZX]/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** The host PIDs of the running `sleep <seconds>` processes. */
function sleepers(seconds: string): number[] {
  return fs
    .readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map(Number)
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8') === `sleep\0${seconds}\0` && running(pid);
      } catch {
        return false; // gone meanwhile
      }
    });
}

export const sleepRunning = (seconds: string): boolean => sleepers(seconds).length > 0;

/** Ends what a test deliberately left running (a child the code under test may leave behind). */
export function endSleep(seconds: string): void {
  for (const pid of sleepers(seconds)) process.kill(pid, 'SIGKILL');
}
