// `bench serve --upstream URL` / `--out DIR`: the gateway on its own, for an agent you start yourself.
// A run is named by the header x-loopbench-run (made on its first request); each gets the brakes
// the flags give, and its calls are recorded as they happen. A run's record is appended to runs.jsonl
// when it goes quiet (no request of it being handled and none for --run-idle) or the gateway stops, and the run is
// forgotten then: memory holds the open runs (and the ids of the last CLOSED_RUNS_KEPT closed ones,
// which are refused if named again). The gateway never sees the agent's answer, so a run no brake stopped is `done` with no answer
// to check (`bench run --agent-cmd` checks answers). While it runs, gateway.pid in the directory names
// its process: left behind by a kill, it tells `bench report` to rebuild the runs never recorded (recover.ts).
import fs from 'node:fs';
import type { RunRecord } from '../contracts/records.ts';
import type { Stop } from '../contracts/stop-reason.ts';
import type { Settings } from '../contracts/settings.ts';
import type { SimServer, StartSim } from '../contracts/sim-server.ts';
import type { TokenCounter } from '../meter/tokens.ts';
import { writeFileAtomic } from '../results/atomic.ts';
import { JsonlWriter } from '../results/jsonl.ts';
import { resultFile } from '../results/results-dir.ts';
import { stepLine } from '../results/step-line.ts';
import { Gateway, type GatewayOptions, type GatewayRun } from './gateway.ts';
import { meteredRunRecord, RunMeter } from './run-meter.ts';
import type { Upstream } from './upstream.ts';
import { cacheBillingByModel, cacheBillingFor } from '../meter/prompt-cache.ts';

/** Steps reach steps.jsonl at most this long after their call, and at most one write this often: one write per batch, not one per call. */
export const STEP_FLUSH_MS = 50;
/** A run with no request being handled and none for this long is recorded and forgotten (bench serve --run-idle). */
export const RUN_IDLE_MS = 10 * 60_000;
/**
 * Closed runs whose id (and stop) is kept to refuse a call naming them again: the most recent ones, so a
 * long-lived gateway's memory stays bounded. A call naming an id closed before those opens a new run under
 * it, with fresh brakes and totals; the finished run's record is not touched (docs/models.md).
 */
export const CLOSED_RUNS_KEPT = 10_000;

export interface StandaloneOptions {
  host: string;
  port: number;
  authToken?: string;
  /** An OpenAI-compatible provider's base URL (Chat Completions, Responses); with neither URL: the simulated models (the model name names the profile). */
  upstreamUrl?: string;
  apiKey?: string;
  /** An Anthropic provider's base URL as its SDKs spell it (no /v1), for Messages, and its key. */
  anthropicUrl?: string;
  anthropicKey?: string;
  /** A run's price by the model its first call names (--price-model not given); `unpriced` refuses that call and ends the run. */
  priceOf?: GatewayRun['priceOf'];
  /** Each upstream call's total and idle deadlines, in ms, and the most bytes of one answer. */
  timeoutMs: number;
  idleMs: number;
  maxAnswerBytes: number;
  /** Every run's settings; `scenario` and `seed` are filled per run. */
  settings: Omit<Settings, 'scenario' | 'seed' | 'repeat'>;
  dir: string;
  counter: TokenCounter;
  promptCache: boolean;
  /** Starts the simulated upstream, when neither URL is given (the command line gives bench serve's). */
  startSim: StartSim;
  /** POST /v1/traces, when asked for (bench serve --traces). */
  traces?: GatewayOptions['traces'];
  /** How long a run may go without a call before it is recorded and forgotten (default RUN_IDLE_MS). */
  runIdleMs?: number;
  /** How many closed runs' ids are kept to refuse (default CLOSED_RUNS_KEPT). */
  closedRunsKept?: number;
  /** Told of each run record as it is appended to runs.jsonl. */
  onRecorded?: (record: RunRecord) => void;
}

export interface RunningGateway {
  url: string;
  /** Stops the gateway: calls in flight are cut and recorded, then the open runs' records are written. */
  close(): Promise<void>;
  /** Runs open now (named, not yet recorded). */
  readonly openRuns: number;
}

interface OpenRun {
  meter: RunMeter;
  startedAt: string;
  timer: NodeJS.Timeout | null;
}

export async function startStandaloneGateway(o: StandaloneOptions): Promise<RunningGateway> {
  fs.mkdirSync(o.dir, { recursive: true });
  const pidFile = resultFile(o.dir, 'gatewayPid');
  writeFileAtomic(pidFile, `${process.pid}\n`);
  const steps = new JsonlWriter(resultFile(o.dir, 'steps'));
  const runs = new JsonlWriter(resultFile(o.dir, 'runs'));
  const idleMs = o.runIdleMs ?? RUN_IDLE_MS;
  const open = new Map<string, OpenRun>();
  /** Closed runs' ids → their stop, oldest first (a Map keeps insertion order). */
  const closed = new Map<string, Stop | null>();
  const closedKept = o.closedRunsKept ?? CLOSED_RUNS_KEPT;
  let flushTimer: NodeJS.Timeout | null = null;
  let flushNow: NodeJS.Immediate | null = null;
  let flushedAt = -Infinity;
  const flush = () => {
    flushTimer = flushNow = null;
    flushedAt = performance.now();
    steps.flush();
  };
  // A step comes at most STEP_FLUSH_MS after the last write: written in this same wake, once its answer is
  // sent (setImmediate), not by a timer that wakes the process again (an agent alone, 200 ms a call, paid a
  // second wake per call for it); sooner, it waits for the rest of that time, so a busy gateway still writes
  // one batch per STEP_FLUSH_MS.
  const flushSoon = () => {
    if (flushTimer || flushNow) return;
    const wait = flushedAt + STEP_FLUSH_MS - performance.now();
    if (wait > 0) flushTimer = setTimeout(flush, wait);
    else flushNow = setImmediate(flush);
  };
  let gateway: Gateway | null = null;
  let finished = false;
  /** Appends a run's record (after its steps) and forgets the run. */
  const record = (run: OpenRun, why: string) => {
    if (run.timer) clearTimeout(run.timer);
    steps.flush();
    const r = recordOf(run.meter, run.startedAt, why);
    runs.write(r);
    runs.flush();
    open.delete(run.meter.runId);
    closed.set(run.meter.runId, run.meter.stop);
    if (closed.size > closedKept) closed.delete(closed.keys().next().value!);
    const known = gateway?.run(run.meter.runId);
    if (known?.meter === run.meter) gateway!.forget(known);
    o.onRecorded?.(r);
  };
  /** (Re)starts a run's quiet time; when it runs out with no request of the run being handled, the run is recorded. */
  const arm = (run: OpenRun) => {
    // Re-armed after every call: refresh() restarts the same timer, no new one per call.
    if (run.timer) {
      run.timer.refresh();
      return;
    }
    run.timer = setTimeout(() => {
      run.timer = null;
      if (run.meter.busy) arm(run);
      else record(run, `recorded when it went quiet (no call for ${idleMs / 1000} s)`);
    }, idleMs);
    run.timer.unref();
  };
  /** Writes what is buffered and every open run's record, once: on close, or when the process exits some other way. */
  const finish = () => {
    if (finished) return;
    finished = true;
    if (flushTimer) clearTimeout(flushTimer);
    if (flushNow) clearImmediate(flushNow);
    for (const run of [...open.values()]) record(run, 'recorded when the gateway stopped');
    steps.close();
    runs.close();
    fs.rmSync(pidFile, { force: true });
  };
  // An exit nobody planned (an uncaught error) still leaves the records taken so far.
  process.once('exit', finish);
  const real = o.upstreamUrl !== undefined || o.anthropicUrl !== undefined;
  // The sim caches as the provider each run is priced as: by the model a request names, or --price-model's.
  const fixed = cacheBillingFor(o.settings.price);
  // An unpriced model's call is refused before it reaches the sim: its caching rule never matters.
  const pricedOf = o.priceOf
    ? (model: string) => {
        const p = o.priceOf!(model);
        return p && !('unpriced' in p) ? p : undefined;
      }
    : undefined;
  const sim: SimServer | null = real
    ? null
    : await o.startSim({
        promptCache: o.promptCache,
        cacheBilling: pricedOf ? cacheBillingByModel(pricedOf, fixed) : fixed,
      });
  const bounds = { timeoutMs: o.timeoutMs, idleMs: o.idleMs, maxAnswerBytes: o.maxAnswerBytes };
  const openai: Upstream | null =
    o.upstreamUrl !== undefined ? { url: o.upstreamUrl, apiKey: o.apiKey, speaks: 'openai', ...bounds } : null;
  const anthropic: Upstream | null =
    o.anthropicUrl !== undefined
      ? { url: `${o.anthropicUrl.replace(/\/+$/, '')}/v1`, apiKey: o.anthropicKey, speaks: 'anthropic', ...bounds }
      : null;
  const upstream: Upstream = openai ?? anthropic ?? { url: sim!.url, ...bounds };
  try {
    gateway = await Gateway.start({
      host: o.host,
      port: o.port,
      counter: o.counter,
      authToken: o.authToken,
      traces: o.traces,
      onRunError: (id, detail) => console.error(`bench serve: run '${id}' ended: ${detail}`),
      runForHeader: (id) => {
        if (closed.has(id))
          return {
            closed: `Run '${id}' is closed: it went quiet for ${idleMs / 1000} s and its record is written; send a new run id (bench serve --run-idle sets how long a run may pause)`,
            stop: closed.get(id)!,
          };
        const settings: Settings = { ...o.settings, scenario: 'external', seed: 0, repeat: 0 };
        const run: OpenRun = { meter: null!, startedAt: new Date().toISOString(), timer: null };
        run.meter = new RunMeter(id, 'external', settings, (r) => {
          steps.writeLine(stepLine(r));
          flushSoon();
          arm(run);
        });
        open.set(id, run);
        arm(run);
        return {
          meter: run.meter,
          upstream,
          ...(openai && anthropic ? { anthropic } : {}),
          ...(o.priceOf ? { priceOf: o.priceOf } : {}),
        };
      },
    });
  } catch (e) {
    await sim?.close();
    process.off('exit', finish);
    finish();
    throw e;
  }
  const running = gateway;
  return {
    url: running.url,
    get openRuns() {
      return open.size;
    },
    close: async () => {
      await running.close();
      await sim?.close();
      process.off('exit', finish);
      finish();
    },
  };
}

function recordOf(meter: RunMeter, startedAt: string, when: string): RunRecord {
  const { steps } = meter.state;
  // A run whose last call failed (refused, or no answer) and then went quiet ended on that error.
  const stop: Stop =
    meter.stop ??
    (meter.lastError !== null
      ? { reason: 'error', detail: `its last call failed: ${meter.lastError}; ${when}`, step: steps }
      : {
          reason: 'done',
          detail: `no brake fired in ${meter.state.calls} call(s); ${when} (the gateway does not see the agent's answer)`,
          step: steps,
        });
  return meteredRunRecord(meter, { stop, answer: null, success: null, started_at: startedAt });
}
