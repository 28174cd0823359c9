// Preloaded (`node --import`) into a child process by `bench perf`: when the child exits, it writes
// its peak resident set size (kB) and CPU time (µs, user + system) as JSON to LOOPBENCH_PROBE_FILE.
import fs from 'node:fs';

const file = process.env.LOOPBENCH_PROBE_FILE;
if (file)
  process.on('exit', () => {
    const u = process.resourceUsage();
    fs.writeFileSync(file, JSON.stringify({ maxRSS: u.maxRSS, cpu: u.userCPUTime + u.systemCPUTime }));
  });
