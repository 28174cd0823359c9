// `bench serve --upstream URL` / `--out DIR`: the gateway on its own, for an agent you start yourself.
// A run is named by the header x-loopbench-run (made on its first request); each gets the brakes
// the flags give, and its calls are recorded as they happen. Runs are written to runs.jsonl when
// the gateway stops: the gateway never sees the agent's answer, so a run no brake stopped is `done`
// with no answer to check (`bench run --agent-cmd` checks answers).
import fs from 'node:fs';
import type { RunRecord } from '../contracts/records.ts';
import type { Price, Settings } from '../contracts/settings.ts';
import type { SimServer, StartSim } from '../contracts/sim-server.ts';
import type { TokenCounter } from '../meter/tokens.ts';
import { JsonlWriter } from '../results/jsonl.ts';
import { resultFile } from '../results/results-dir.ts';
import { stepLine } from '../results/step-line.ts';
import { Gateway, type GatewayOptions } from './gateway.ts';
import { meteredRunRecord, RunMeter } from './run-meter.ts';
import type { Upstream } from './upstream.ts';

/** Steps reach steps.jsonl at most this long after their call: one write per batch, not one per call. */
export const STEP_FLUSH_MS = 50;

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
  /** A run's price by the model its first call names (when the table has one; --price-model not given). */
  priceOf?: (model: string) => Price | undefined;
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
}

export interface RunningGateway {
  url: string;
  /** Stops the gateway: calls in flight are cut and recorded, then runs.jsonl is written. */
  close(): Promise<void>;
}

export async function startStandaloneGateway(o: StandaloneOptions): Promise<RunningGateway> {
  fs.mkdirSync(o.dir, { recursive: true });
  const steps = new JsonlWriter(resultFile(o.dir, 'steps'));
  const started = new Map<string, string>();
  let flushTimer: NodeJS.Timeout | null = null;
  const flushSoon = () => {
    flushTimer ??= setTimeout(() => {
      flushTimer = null;
      steps.flush();
    }, STEP_FLUSH_MS);
  };
  let gateway: Gateway | null = null;
  let finished = false;
  /** Writes what is buffered and every run's record, once: on close, or when the process exits some other way. */
  const finish = () => {
    if (finished) return;
    finished = true;
    if (flushTimer) clearTimeout(flushTimer);
    steps.close();
    if (!gateway) return;
    const runs = new JsonlWriter(resultFile(o.dir, 'runs'));
    for (const { meter } of gateway.runs()) runs.write(recordOf(meter, started.get(meter.runId)!));
    runs.close();
  };
  // An exit nobody planned (an uncaught error) still leaves the records taken so far.
  process.once('exit', finish);
  const real = o.upstreamUrl !== undefined || o.anthropicUrl !== undefined;
  const sim: SimServer | null = real ? null : await o.startSim({ promptCache: o.promptCache });
  const bounds = { timeoutMs: o.timeoutMs, idleMs: o.idleMs, maxAnswerBytes: o.maxAnswerBytes };
  const openai: Upstream | null = o.upstreamUrl !== undefined ? { url: o.upstreamUrl, apiKey: o.apiKey, speaks: 'openai', ...bounds } : null;
  const anthropic: Upstream | null = o.anthropicUrl !== undefined ? { url: `${o.anthropicUrl.replace(/\/+$/, '')}/v1`, apiKey: o.anthropicKey, speaks: 'anthropic', ...bounds } : null;
  const upstream: Upstream = openai ?? anthropic ?? { url: sim!.url, ...bounds };
  try {
    gateway = await Gateway.start({
      host: o.host,
      port: o.port,
      counter: o.counter,
      authToken: o.authToken,
      traces: o.traces,
      runForHeader: (id) => {
        started.set(id, new Date().toISOString());
        const settings: Settings = { ...o.settings, scenario: 'external', seed: 0, repeat: 0 };
        const meter = new RunMeter(id, 'external', settings, (r) => {
          steps.writeLine(stepLine(r));
          flushSoon();
        });
        return { meter, upstream, ...(openai && anthropic ? { anthropic } : {}), maxOutputTokens: settings.max_output_tokens, ...(o.priceOf ? { priceOf: o.priceOf } : {}) };
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
    close: async () => {
      await running.close();
      await sim?.close();
      process.off('exit', finish);
      finish();
    },
  };
}

function recordOf(meter: RunMeter, startedAt: string): RunRecord {
  const stop = meter.stop ?? { reason: 'done' as const, detail: `no brake fired in ${meter.state.steps} call(s); recorded when the gateway stopped (it does not see the agent's answer)`, step: meter.state.steps };
  return meteredRunRecord(meter, { stop_reason: stop.reason, stop_detail: stop.detail, stop_step: stop.step, answer: null, success: null, started_at: startedAt });
}
