// Processes that left their process group with setsid() are out of reach of a group kill, but they
// inherit their environment: whoever starts a program puts a tag in it, and finds every process
// that still carries it through /proc (Linux; elsewhere the process group is all there is).
import fs from 'node:fs';

/** A process's state and process group, from /proc/PID/stat (the name in parentheses may hold anything). */
function statOf(pid: string): { state: string; group: number } | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: state!, group: Number(group) };
  } catch {
    return null;
  }
}

/**
 * Kills every process whose environment has `variable=tag`. Returns how many of them were outside
 * `group`: the members of the group a caller has just killed may still be dying, environment and all,
 * and are not processes that escaped it.
 */
export function killTagged(variable: string, tag: string, group?: number): number {
  const needle = `${variable}=${tag}`;
  let pids: string[];
  try {
    pids = fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return 0; // no /proc: the process group is all there is
  }
  let escaped = 0;
  for (const pid of pids) {
    try {
      if (!fs.readFileSync(`/proc/${pid}/environ`, 'latin1').includes(needle)) continue;
      const stat = statOf(pid);
      if (stat?.state === 'Z' || stat?.state === 'X') continue; // dead, waiting to be reaped
      process.kill(Number(pid), 'SIGKILL');
      if (stat?.group !== group) escaped++;
    } catch {
      /* gone already, or not ours to read */
    }
  }
  return escaped;
}
