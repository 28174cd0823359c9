// `npx tsx bench/concurrency.ts [runs steps concurrency latencyMs]`: the concurrency speed target.
import os from 'node:os';
import { CONCURRENCY_TARGET, concurrencyBench } from '../src/serve/concurrency-bench.ts';

const [runs, steps, concurrency, latencyMs] = process.argv.slice(2).map(Number);
const r = await concurrencyBench({
  runs: runs || CONCURRENCY_TARGET.runs,
  steps: steps || CONCURRENCY_TARGET.steps,
  concurrency: concurrency || CONCURRENCY_TARGET.concurrency,
  latencyMs: latencyMs || CONCURRENCY_TARGET.latencyMs,
});
console.log(
  `${r.runs} runs × ${r.steps} steps at --concurrency ${r.concurrency} against bench serve --latency ${r.latencyMs}: ` +
    `${r.calls} calls, ${r.measuredS.toFixed(2)} s (ideal ${r.idealS.toFixed(2)} s), efficiency ${(100 * r.efficiency).toFixed(1)}%, ${r.errors} errored runs, ` +
    `harness CPU ${r.cpuMsPerCall.toFixed(1)} ms/call, load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores`,
);
process.exitCode = r.efficiency >= 0.9 && r.errors === 0 ? 0 : 1;
