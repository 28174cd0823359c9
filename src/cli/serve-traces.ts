// `bench serve --traces DIR`: POST /v1/traces on bench serve and on the gateway. Spans are kept as they
// come (DIR/traces.otlp.jsonl); when the server stops they are imported into DIR as runs, with reports.
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../contracts/errors.ts';
import { cutPartialLine } from '../results/jsonl.ts';
import { hasRecords, resultsDirFor } from '../results/results-dir.ts';
import { isLoopback } from '../gateway/gateway.ts';
import { importOtlp } from '../trajectories/otlp-import.ts';
import { trajectoryFiles } from '../trajectories/import-dir.ts';
import { tracesReceiver, type TracesReceiver } from '../trajectories/traces-route.ts';
import { pricing } from './import.ts';
import { printSummary } from './summary-table.ts';

export const TRACES_FILE = 'traces.otlp.jsonl';

export interface ServedTraces {
  dir: string;
  receiver: TracesReceiver;
  /** Lines on disk from an earlier start that was not stopped cleanly (a crash, SIGKILL): imported with the new ones. */
  earlier: boolean;
}

/** The receiver for --traces, or undefined without it. */
export function servedTraces(dirArg: string | undefined, host: string): ServedTraces | undefined {
  if (dirArg === undefined) return undefined;
  // The route takes no credential: spans from beyond this machine would be runs anyone could add.
  if (!isLoopback(host)) throw new UsageError(`--traces: only on a loopback --host (127.0.0.1), not ${host}`);
  const dir = resultsDirFor(dirArg);
  if (fs.existsSync(dir) && hasRecords(dir))
    throw new UsageError(`--traces: ${dir} already holds results (use another directory)`);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, TRACES_FILE);
  // A crash may have cut the last request's line short: that request was never acknowledged.
  const cut = cutPartialLine(file);
  if (cut)
    console.error(
      `bench: ${file} ended in a partial line (${cut} byte(s) of a request cut short by a crash, never acknowledged): cut off`,
    );
  const earlier = fs.existsSync(file) && fs.statSync(file).size > 0;
  if (earlier)
    console.error(
      `bench: ${file} holds spans from an earlier start that did not stop cleanly: they are imported with the new ones when this one stops`,
    );
  return { dir, receiver: tracesReceiver(file), earlier };
}

/** When the server has stopped: the spans received become runs, and their reports are built. */
export async function importServedTraces(t: ServedTraces): Promise<void> {
  t.receiver.close();
  const got = t.receiver.received();
  if (got.spans === 0 && !t.earlier)
    return void console.error(
      `bench: no spans came to POST /v1/traces (${got.requests} request(s)); nothing imported into ${t.dir}`,
    );
  const done = importOtlp(trajectoryFiles([path.join(t.dir, TRACES_FILE)]), t.dir, {
    price: pricing({}),
    command: process.argv.slice(2),
  });
  for (const line of done.skipped) console.error(`bench: skipped ${line}`);
  for (const note of done.notes) console.error(`bench: note: ${note}`);
  const from = `${got.spans} span(s) posted to /v1/traces${t.earlier ? ' (and the lines an earlier start left on disk)' : ''}`;
  if (done.runs === 0)
    return void console.error(
      `bench: ${from}, none of them a GenAI chat span: no runs (the spans are in ${path.join(t.dir, TRACES_FILE)})`,
    );
  const { buildReports } = await import('../report/build.ts');
  const built = await buildReports(t.dir);
  console.log(`imported ${done.runs} run(s), ${done.steps} model call(s) from ${from}`);
  printSummary(built, { json: false, dir: t.dir });
}
