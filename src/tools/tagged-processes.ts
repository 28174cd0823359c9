// Processes that left their process group with setsid() are out of reach of a group kill, but they
// inherit their environment: whoever starts a program puts a tag in it, and finds every process
// that still carries it through /proc (Linux; elsewhere the process group is all there is).
import fs from 'node:fs';

/** Kills every process whose environment has `variable=tag`; returns how many. */
export function killTagged(variable: string, tag: string): number {
  const needle = `${variable}=${tag}`;
  let pids: string[];
  try {
    pids = fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return 0; // no /proc: the process group is all there is
  }
  let killed = 0;
  for (const pid of pids) {
    try {
      if (!fs.readFileSync(`/proc/${pid}/environ`, 'latin1').includes(needle)) continue;
      process.kill(Number(pid), 'SIGKILL');
      killed++;
    } catch {
      /* gone already, or not ours to read */
    }
  }
  return killed;
}
