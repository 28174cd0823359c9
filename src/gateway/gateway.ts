// The gateway: an OpenAI-compatible endpoint in front of a model (the sim's `bench serve`, or a real
// provider) that plays for an agent that is not ours the part the ModelCaller plays for built-in
// loops — brakes before each call, metering after it, one StepRecord per call. A request belongs to
// a run by its virtual API key (`lb-…`, handed to the agent in place of the real key) or by the
// header `x-loopbench-run`.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../contracts/errors.ts';
import type { HttpRoute } from '../contracts/http-route.ts';
import type { Stop } from '../contracts/stop-reason.ts';
import type { TokenCounter } from '../meter/tokens.ts';
import { redact } from '../models/redact.ts';
import { apiError, parseCompletionRequest, type ApiError } from '../serve/protocol.ts';
import { readBody } from '../serve/read-body.ts';
import type { RunMeter } from './run-meter.ts';
import { replayed, tapeKey, tapeMessage, type Tape } from './tape.ts';
import { requestParts } from '../models/request-parts.ts';
import { forward, type Upstream } from './upstream.ts';

export const RUN_HEADER = 'x-loopbench-run';
/** Standalone gateway: POST here to open a run and get its virtual key. */
export const RUNS_ROUTE = '/v1/loopbench/runs';
const KEY_PREFIX = 'lb-';

/** A run the gateway meters: its brakes' state, where its calls go, the most each answer may be. */
export interface GatewayRun {
  meter: RunMeter;
  upstream: Upstream;
  /** The ceiling on each answer (the request's max_tokens is lowered to it): what the budget brake projects. */
  maxOutputTokens: number;
  /** `--record` / `--replay`: a cassette the calls are added to, or answered from. */
  tape?: Tape;
}

export interface GatewayOptions {
  host: string;
  port: number;
  counter: TokenCounter;
  /** Required for a non-loopback host; then header-identified runs must present it as the bearer token. */
  authToken?: string;
  /** A run named by header that the gateway does not know yet (standalone `bench serve`); null refuses it. */
  runForHeader?: (runId: string) => GatewayRun | null;
  /** POST /v1/traces (an OTLP receiver, given by the command line), when asked for. */
  traces?: HttpRoute;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
export const isLoopback = (host: string) => LOOPBACK.has(host) || host.startsWith('127.');

/** The OpenAI-format refusal of a call a brake stopped: 403, which SDKs do not retry. */
export function brakeError(stop: Stop): ApiError {
  return apiError(403, `loopbench brake '${stop.reason}' stopped this run: ${stop.detail}`, 'loopbench_brake', null, `loopbench_${stop.reason}`);
}

const unauthorized = (message: string) => apiError(401, message, 'invalid_request_error', null, 'invalid_api_key');

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export class Gateway {
  private readonly byKey = new Map<string, GatewayRun>();
  private readonly byId = new Map<string, GatewayRun>();
  private server!: http.Server;
  url = '';

  private constructor(private readonly o: GatewayOptions) {}

  static async start(o: GatewayOptions): Promise<Gateway> {
    if (!isLoopback(o.host) && !o.authToken) throw new UsageError(`--host ${o.host}: a gateway reachable beyond this machine needs --auth-token (or bind 127.0.0.1)`);
    const g = new Gateway(o);
    g.server = http.createServer((req, res) => {
      void g.handle(req, res).catch((e: Error) => {
        if (!res.headersSent) send(res, apiError(500, `gateway error: ${redact(e.message)}`, 'server_error'));
        else res.destroy();
      });
    });
    await new Promise<void>((resolve, reject) => {
      g.server.once('error', (e: NodeJS.ErrnoException) => reject(new UsageError(`cannot listen on ${o.host}:${o.port} (${e.code ?? e.message})`)));
      g.server.listen(o.port, o.host, resolve);
    });
    const port = (g.server.address() as AddressInfo).port;
    g.url = `http://${o.host.includes(':') ? `[${o.host}]` : o.host}:${port}/v1`;
    return g;
  }

  /** Registers a run; its virtual key is what the agent sends as its API key. */
  open(run: GatewayRun): string {
    const key = `${KEY_PREFIX}${randomBytes(18).toString('base64url')}`;
    this.byKey.set(key, run);
    this.byId.set(run.meter.runId, run);
    return key;
  }

  /** The run is over: its key and id are refused from now on. */
  end(key: string): void {
    const run = this.byKey.get(key);
    this.byKey.delete(key);
    if (run) this.byId.delete(run.meter.runId);
  }

  runs(): GatewayRun[] {
    return [...this.byId.values()];
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private identify(req: http.IncomingMessage): GatewayRun | ApiError {
    const auth = req.headers.authorization ?? '';
    const bearer = /^Bearer\s+(\S+)$/i.exec(auth)?.[1] ?? '';
    if (bearer.startsWith(KEY_PREFIX)) return this.byKey.get(bearer) ?? unauthorized('Unknown or expired loopbench virtual key: each run has its own key, valid while the run lasts.');
    const header = req.headers[RUN_HEADER];
    const id = Array.isArray(header) ? header[0] : header;
    if (!id) return unauthorized(`No run: send the run's virtual key (lb-…) as the API key, or the header ${RUN_HEADER}.`);
    if (this.o.authToken && !sameSecret(bearer, this.o.authToken)) return unauthorized(`Header ${RUN_HEADER} needs the gateway's --auth-token as the bearer token.`);
    const known = this.byId.get(id);
    if (known) return known;
    const made = this.o.runForHeader?.(id) ?? null;
    if (!made) return unauthorized(`Unknown run '${id}'.`);
    this.byId.set(id, made);
    return made;
  }

  /** Opens a run on request (standalone gateway), so an agent whose SDK cannot send a header still gets a run: its virtual key. */
  private async mint(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (req.method !== 'POST') return send(res, apiError(405, `Method ${req.method} not allowed on ${RUNS_ROUTE} (use POST)`));
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
    if (this.o.authToken && !sameSecret(bearer, this.o.authToken)) return send(res, unauthorized(`${RUNS_ROUTE} needs the gateway's --auth-token as the bearer token.`));
    const read = await readJson(req);
    if ('error' in read) return send(res, read.error);
    const asked = read.value.run_id;
    if (asked !== undefined && (typeof asked !== 'string' || !/^[\w.=-]{1,200}$/.test(asked)))
      return send(res, apiError(400, "Invalid value for 'run_id': letters, digits, '_', '.', '=', '-' (at most 200)", 'invalid_request_error', 'run_id'));
    const id = asked ?? `run-${this.byId.size + 1}-${randomBytes(3).toString('hex')}`;
    if (this.byId.has(id)) return send(res, apiError(409, `Run '${id}' exists already`, 'invalid_request_error', 'run_id'));
    const run = this.o.runForHeader!(id);
    if (!run) return send(res, unauthorized(`Run '${id}' refused.`));
    sendText(res, 201, JSON.stringify({ run_id: id, api_key: this.open(run) }));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const route = new URL(req.url ?? '/', 'http://x').pathname.replace(/\/+$/, '');
    if (route === RUNS_ROUTE && this.o.runForHeader) return this.mint(req, res);
    if (route === '/v1/traces' && this.o.traces) return this.o.traces(req, res);
    if (route !== '/v1/chat/completions') return send(res, apiError(404, `Unknown route ${req.method} ${route} (the gateway serves POST /v1/chat/completions)`, 'invalid_request_error', null, 'unknown_url'));
    if (req.method !== 'POST') return send(res, apiError(405, `Method ${req.method} not allowed on /v1/chat/completions (use POST)`));
    const run = this.identify(req);
    if ('status' in run) return send(res, run);
    const read = await readJson(req);
    if ('error' in read) return send(res, read.error);
    const body = read.value;
    const parsed = parseCompletionRequest(body);
    if (!parsed.ok) return send(res, parsed.error);
    const { request, chat } = parsed;
    const maxOut = Math.min(request.max_completion_tokens ?? request.max_tokens ?? run.maxOutputTokens, run.maxOutputTokens);
    const admitted = run.meter.admit(this.o.counter.prompt(chat.messages, chat.tools), maxOut);
    if ('stop' in admitted) return send(res, brakeError(admitted.stop));
    const up = run.upstream;
    const outgoing: Record<string, unknown> = { ...body, ...(up.model ? { model: up.model } : {}) };
    // The answer's ceiling is what the budget projected; a provider bills no more than it writes.
    if (request.max_completion_tokens != null) outgoing.max_completion_tokens = maxOut;
    else outgoing.max_tokens = maxOut;
    if (up.seed !== undefined && request.seed === undefined) outgoing.seed = up.seed;
    const clientWantsUsage = request.stream_options?.include_usage === true;
    if (request.stream) outgoing.stream_options = { ...(request.stream_options ?? {}), include_usage: true };
    const aborted = new AbortController();
    // The agent hung up before its answer: stop waiting for the upstream.
    res.once('close', () => !res.writableFinished && aborted.abort());
    const tape = run.tape;
    const key = tape ? tapeKey(tape, { ...chat, model: String(outgoing.model), max_tokens: maxOut, ...(outgoing.seed !== undefined ? { seed: Number(outgoing.seed) } : {}) }) : '';
    let answer;
    if (tape?.replay) {
      answer = replayed(tape, key, String(outgoing.model), request.stream === true);
      if (!answer) {
        const miss = `replay: ${tape.replay.file} has no recorded answer for this request (model ${tape.spec}, request ${key.slice(0, 12)}); record it again with --record`;
        run.meter.fail(admitted.ticket, miss, chat.messages);
        return send(res, apiError(400, miss, 'invalid_request_error', null, 'loopbench_replay_miss'));
      }
    } else answer = await forward(up, outgoing, aborted.signal);
    if (!answer.ok) {
      run.meter.fail(admitted.ticket, answer.error, chat.messages);
      if (answer.body) return sendText(res, answer.status, answer.body);
      return send(res, apiError(answer.status, answer.error, 'server_error'));
    }
    const usage = answer.usage ?? { prompt_tokens: this.o.counter.prompt(chat.messages, chat.tools), completion_tokens: this.o.counter.produced(answer.message), cached_tokens: 0 };
    tape?.record?.add({ key, model: tape.spec, scenario: tape.scenario, step: run.meter.state.steps + 1, role: 'act', request: requestParts({ ...chat, model: String(outgoing.model), max_tokens: maxOut }), message: tapeMessage(answer.message), usage, latencyMs: 0 });
    const stop = run.meter.settle(admitted.ticket, usage, chat.messages, answer.message);
    if (stop) return send(res, brakeError(stop));
    if (!answer.stream) return sendText(res, 200, answer.body);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    for (const e of answer.events) {
      // The usage chunk was asked for by the gateway; the agent gets it only if it asked too.
      if (!clientWantsUsage && e !== '[DONE]' && isUsageOnly(e)) continue;
      res.write(`data: ${e}\n\n`);
    }
    res.end();
  }
}

function isUsageOnly(event: string): boolean {
  try {
    const chunk = JSON.parse(event) as { choices?: unknown[]; usage?: unknown };
    return Array.isArray(chunk.choices) && chunk.choices.length === 0 && chunk.usage != null;
  } catch {
    return false;
  }
}

/** The body as a JSON object (what every route of the gateway takes). */
async function readJson(req: http.IncomingMessage): Promise<{ value: Record<string, unknown> } | { error: ApiError }> {
  const read = await readBody(req);
  if ('error' in read) return read;
  const v = read.value;
  if (v && typeof v === 'object' && !Array.isArray(v)) return { value: v as Record<string, unknown> };
  return { error: apiError(400, 'Request body must be a JSON object') };
}

function send(res: http.ServerResponse, e: ApiError): void {
  sendText(res, e.status, JSON.stringify(e.body));
}

function sendText(res: http.ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
