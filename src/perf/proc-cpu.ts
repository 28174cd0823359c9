// CPU time of another process, read from Linux's /proc: the sum over its threads of the time each
// ran on a CPU (schedstat, in ns), so a server's CPU per request can be measured from outside it.
// Elsewhere there is no /proc: null, and the perf rows say the figure is not available.
import fs from 'node:fs';

/** CPU time the process has used so far (all its live threads), in ms; null where /proc is absent. */
export function processCpuMs(pid: number): number | null {
  const dir = `/proc/${pid}/task`;
  let tasks: string[];
  try {
    tasks = fs.readdirSync(dir);
  } catch {
    return null;
  }
  let ns = 0;
  for (const t of tasks) {
    try {
      ns += Number(fs.readFileSync(`${dir}/${t}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended between the listing and the read: its time is gone with it.
    }
  }
  return ns / 1e6;
}

/** Peak resident set size of the process so far (VmHWM), in MB; null where /proc is absent. */
export function processPeakRssMb(pid: number): number | null {
  try {
    const kb = /VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? null : Number(kb) / 1024;
  } catch {
    return null;
  }
}
