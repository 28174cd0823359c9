// The gateway: an OpenAI-compatible endpoint in front of a model (the sim's `bench serve`, or a real
// provider) that plays for an agent that is not ours the part the ModelCaller plays for built-in
// loops — brakes before each call, metering after it, one StepRecord per call. A request belongs to
// a run by its virtual API key (`lb-…`, handed to the agent in place of the real key) or by the
// header `x-loopbench-run`. Each wire protocol is an adapter (src/wire/adapter.ts); what follows is
// the same for all of them. The request is forwarded as the agent sent it, with the few fields
// the gateway sets spliced into its bytes, and metered for what it adds to the run's conversation.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { WebSocket } from 'ws';
import { UsageError } from '../contracts/errors.ts';
import { REFUSED } from '../contracts/records.ts';
import type { HttpRoute } from '../contracts/http-route.ts';
import { runIdProblem, RUN_ID_RULE } from '../contracts/run-id.ts';
import type { Price } from '../contracts/settings.ts';
import type { Stop } from '../contracts/stop-reason.ts';
import type { SpendGuard } from '../contracts/sweep-state.ts';
import type { TokenCounter } from '../meter/tokens.ts';
import { redact } from '../models/redact.ts';
import { requestParts } from '../models/request-parts.ts';
import { BodyPool, ownLease, type Lease } from '../wire/body-pool.ts';
import { MAX_BODY, readBody, readBytes } from '../wire/read-body.ts';
import { wsModule } from '../wire/ws-module.ts';
import { Conversations, countAnswer, tally, type Tally } from './conversation.ts';
import { worstCase, type RunMeter, type Ticket } from './run-meter.ts';
import { tapeKey, tapeMessage, type Tape } from './tape.ts';
import { forward, type CallBounds, type FailureCause, type Outcome, type Upstream } from './upstream.ts';
import { forwardFrame, openUpstreamSocket } from './upstream-socket.ts';
import { meterUsage } from './usage-check.ts';
import type { AnswerReader, SentOn, WireAdapter, WireCall } from '../wire/adapter.ts';
import { chatWire } from '../wire/chat/adapter.ts';
import type { WireError } from '../wire/error.ts';
import { messagesWire } from '../wire/messages/adapter.ts';
import { responsesWire } from '../wire/responses/adapter.ts';
import { BINARY_FRAME, errorFrame } from '../wire/responses/websocket.ts';
import { routeOf } from '../wire/route-of.ts';
import { keepIdleConnections } from '../wire/keep-alive.ts';
import { isObject, json, parseSse } from '../wire/sse.ts';

export const RUN_HEADER = 'x-loopbench-run';
/** Standalone gateway: POST here to open a run and get its virtual key. */
export const RUNS_ROUTE = '/v1/loopbench/runs';
const KEY_PREFIX = 'lb-';

/** A run the gateway meters: its brakes' state (answer-limit.ts: how long an answer its budget allows), where its calls go. */
export interface GatewayRun {
  meter: RunMeter;
  /** Where its calls go (only those of the protocol it `speaks`, when it says). */
  upstream: Upstream;
  /** Where its Anthropic Messages calls go, when not to `upstream` (bench serve with both --upstream and --anthropic-upstream). */
  anthropic?: Upstream;
  /**
   * The standalone gateway: the price of the model a run's first call names (the run is priced so);
   * undefined leaves the run's own price; `unpriced` refuses the call and ends the run with that error.
   */
  priceOf?: (model: string) => Price | { unpriced: string } | undefined;
  /** `--record` / `--replay`: a cassette the calls are added to, or answered from. */
  tape?: Tape;
  /** The sweep's spend cap (`bench run --agent-cmd --ci-max-spend`): told of an over-billed call, and halting every run after one. */
  spend?: SpendGuard;
}

export interface GatewayOptions {
  host: string;
  port: number;
  counter: TokenCounter;
  /** Required for a non-loopback host; then header-identified runs must present it as the bearer token. */
  authToken?: string;
  /**
   * A run named by header that the gateway does not know yet (standalone `bench serve`); null refuses it,
   * and so does a closed run (recorded and forgotten): with the brake that ended it, or why it was closed.
   */
  runForHeader?: (runId: string) => GatewayRun | ClosedRun | null;
  /** POST /v1/traces (an OTLP receiver, given by the command line), when asked for. */
  traces?: HttpRoute;
  /** The wire protocols served (default: Chat Completions, the Responses API, Anthropic Messages). */
  adapters?: WireAdapter[];
  /** Bytes of conversations remembered across runs (conversation.ts). */
  conversationBytes?: number;
  /** Told when a refused request ends its run with an error (a model without a price): bench serve says it on stderr. */
  onRunError?: (runId: string, detail: string) => void;
}

/** A run id the gateway recorded and forgot: calls naming it again are refused. */
export interface ClosedRun {
  closed: string;
  stop: Stop | null;
}

const closedError = (c: ClosedRun): WireError =>
  c.stop
    ? brakeError(c.stop)
    : { status: 409, message: c.closed, type: 'invalid_request_error', code: 'loopbench_run_closed' };

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
export const isLoopback = (host: string) => LOOPBACK.has(host) || host.startsWith('127.');

/** The refusal of a call a brake stopped: 403, which SDKs do not retry. */
export function brakeError(stop: Stop): WireError {
  return {
    status: 403,
    message: `loopbench brake '${stop.reason}' stopped this run: ${stop.detail}`,
    type: 'loopbench_brake',
    code: `loopbench_${stop.reason}`,
  };
}

const unauthorized = (message: string): WireError => ({
  status: 401,
  message,
  type: 'invalid_request_error',
  code: 'invalid_api_key',
});

/** HTTP status and error type for a call with no whole answer. */
const FAILURE_STATUS: Record<FailureCause, number> = {
  unreachable: 502,
  dropped: 502,
  cap: 502,
  deadline: 504,
  idle: 504,
  run_timeout: 403,
  stopped: 503,
};

/** The credential a request presents: its bearer token, else its x-api-key. */
function credential(req: http.IncomingMessage): string {
  const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  const key = req.headers['x-api-key'];
  return bearer ?? (typeof key === 'string' ? key.trim() : '');
}

/** A call of a protocol the run's upstream does not speak: refused before it is admitted, in words that say what would reach it. */
function noUpstream(adapter: WireAdapter, up: Upstream): WireError {
  const message =
    adapter.family === 'anthropic'
      ? `This run's upstream speaks the OpenAI API (Chat Completions, Responses): the gateway does not forward Anthropic Messages (POST ${adapter.route}) to it. Measure an Anthropic model with bench run --model anthropic:<model>, or bench serve --anthropic-upstream URL.`
      : `This run's upstream speaks Anthropic Messages (POST /v1/messages) only: the gateway does not forward ${adapter.route} to it. Measure an OpenAI-compatible model with bench run --model openai:<model>, or bench serve --upstream URL.`;
  return {
    status: 400,
    message,
    type: 'invalid_request_error',
    code: `loopbench_no_${up.speaks === 'anthropic' ? 'openai' : 'anthropic'}_upstream`,
  };
}

/** The upstream that answers this protocol for the run, or why none does. */
function upstreamFor(run: GatewayRun, adapter: WireAdapter): Upstream | WireError {
  if (adapter.family === 'anthropic' && run.anthropic) return run.anthropic;
  const up = run.upstream;
  return up.speaks === undefined || up.speaks === adapter.family ? up : noUpstream(adapter, up);
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export class Gateway {
  private readonly byKey = new Map<string, GatewayRun>();
  private readonly byId = new Map<string, GatewayRun>();
  private readonly adapters: Map<string, WireAdapter>;
  private readonly conversations: Conversations<GatewayRun>;
  /** Requests being handled: closing waits for them, so every call that went out is recorded. */
  private readonly handling = new Set<Promise<void>>();
  /** Calls in flight: closing cuts them. */
  private readonly cancels = new Set<() => void>();
  /** Request bodies' buffers, reused call after call. */
  private readonly bodies = new BodyPool();
  private server!: http.Server;
  /** Responses WebSockets (the agent's end): closing cuts them. */
  private readonly sockets = new (wsModule().WebSocketServer)({ noServer: true, maxPayload: MAX_BODY });
  url = '';

  private constructor(private readonly o: GatewayOptions) {
    // The Responses and Messages adapters each keep the answers they relayed (previous_response_id, Threads): one store per gateway.
    this.adapters = new Map(
      (o.adapters ?? [chatWire as WireAdapter, responsesWire() as WireAdapter, messagesWire() as WireAdapter]).map(
        (a) => [a.route, a],
      ),
    );
    this.conversations = new Conversations(o.conversationBytes);
  }

  static async start(o: GatewayOptions): Promise<Gateway> {
    if (!isLoopback(o.host) && !o.authToken)
      throw new UsageError(
        `--host ${o.host}: a gateway reachable beyond this machine needs --auth-token (or bind 127.0.0.1)`,
      );
    const g = new Gateway(o);
    g.server = http.createServer((req, res) => {
      const handled = g.handle(req, res).catch((e: Error) => {
        if (!res.headersSent)
          sendError(res, chatWire, {
            status: 500,
            message: `gateway error: ${redact(e.message)}`,
            type: 'server_error',
          });
        else res.destroy();
      });
      g.track(handled);
    });
    keepIdleConnections(g.server);
    g.server.on('upgrade', (req: http.IncomingMessage, socket: Socket, head: Buffer) =>
      g.track(g.upgrade(req, socket, head).catch(() => void socket.destroy())),
    );
    await new Promise<void>((resolve, reject) => {
      g.server.once('error', (e: NodeJS.ErrnoException) =>
        reject(new UsageError(`cannot listen on ${o.host}:${o.port} (${e.code ?? e.message})`)),
      );
      g.server.listen(o.port, o.host, resolve);
    });
    const port = (g.server.address() as AddressInfo).port;
    g.url = `http://${o.host.includes(':') ? `[${o.host}]` : o.host}:${port}/v1`;
    return g;
  }

  private track(handled: Promise<void>): void {
    this.handling.add(handled);
    void handled.finally(() => this.handling.delete(handled));
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
    if (run) {
      this.byId.delete(run.meter.runId);
      this.conversations.delete(run);
    }
  }

  runs(): GatewayRun[] {
    return [...this.byId.values()];
  }

  /** The open run of this id, if any. */
  run(id: string): GatewayRun | undefined {
    return this.byId.get(id);
  }

  /** Forgets a run whose record is written: its id and keys are refused from now on, its conversations dropped. */
  forget(run: GatewayRun): void {
    this.byId.delete(run.meter.runId);
    for (const [key, r] of this.byKey) if (r === run) this.byKey.delete(key);
    this.conversations.delete(run);
  }

  /** Conversations remembered now (for tests: bounded by open runs and bytes). */
  get remembered(): number {
    return this.conversations.size;
  }

  /** Stops listening; calls in flight are cut and recorded (billed as the upstream may bill them) before it resolves. */
  async close(): Promise<void> {
    for (const cancel of [...this.cancels]) cancel();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    for (const ws of this.sockets.clients) ws.terminate();
    await Promise.allSettled([...this.handling]);
    await closed;
  }

  private identify(req: http.IncomingMessage): GatewayRun | WireError {
    // The key as OpenAI's SDKs send it (the bearer token) or Anthropic's (x-api-key).
    const bearer = credential(req);
    if (bearer.startsWith(KEY_PREFIX))
      return (
        this.byKey.get(bearer) ??
        unauthorized('Unknown or expired loopbench virtual key: each run has its own key, valid while the run lasts.')
      );
    const header = req.headers[RUN_HEADER];
    const id = Array.isArray(header) ? header.join(', ') : header;
    if (!id)
      return unauthorized(`No run: send the run's virtual key (lb-…) as the API key, or the header ${RUN_HEADER}.`);
    const problem = runIdProblem(id);
    if (problem) {
      // Node joins a header sent twice with ', ': say so rather than quote the join.
      const times = req.headersDistinct[RUN_HEADER]?.length ?? 1;
      const message =
        times > 1
          ? `Header ${RUN_HEADER} was sent ${times} times: send one run id`
          : `Header ${RUN_HEADER}: ${problem}`;
      return { status: 400, message, type: 'invalid_request_error', code: 'invalid_run_id' };
    }
    if (this.o.authToken && !sameSecret(bearer, this.o.authToken))
      return unauthorized(
        `Header ${RUN_HEADER} needs the gateway's --auth-token as the bearer token (or as x-api-key).`,
      );
    const known = this.byId.get(id);
    if (known) return known;
    const made = this.o.runForHeader?.(id) ?? null;
    if (!made) return unauthorized(`Unknown run '${id}'.`);
    if ('closed' in made) return closedError(made);
    this.byId.set(id, made);
    return made;
  }

  /** Opens a run on request (standalone gateway), so an agent whose SDK cannot send a header still gets a run: its virtual key. */
  private async mint(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const refuse = (e: WireError) => sendError(res, chatWire, e);
    if (req.method !== 'POST')
      return refuse({
        status: 405,
        message: `Method ${req.method} not allowed on ${RUNS_ROUTE} (use POST)`,
        type: 'invalid_request_error',
      });
    if (this.o.authToken && !sameSecret(credential(req), this.o.authToken))
      return refuse(unauthorized(`${RUNS_ROUTE} needs the gateway's --auth-token as the bearer token.`));
    const read = await readBody(req);
    if ('error' in read) return refuse(read.error);
    const body = read.value;
    if (!body || typeof body !== 'object' || Array.isArray(body))
      return refuse({ status: 400, message: 'Request body must be a JSON object', type: 'invalid_request_error' });
    const asked = (body as { run_id?: unknown }).run_id;
    if (asked !== undefined && (typeof asked !== 'string' || runIdProblem(asked)))
      return refuse({
        status: 400,
        message: `Invalid value for 'run_id': ${RUN_ID_RULE}`,
        type: 'invalid_request_error',
        param: 'run_id',
      });
    const id = asked ?? `run-${this.byId.size + 1}-${randomBytes(3).toString('hex')}`;
    if (this.byId.has(id))
      return refuse({
        status: 409,
        message: `Run '${id}' exists already`,
        type: 'invalid_request_error',
        param: 'run_id',
      });
    const run = this.o.runForHeader!(id);
    if (!run) return refuse(unauthorized(`Run '${id}' refused.`));
    if ('closed' in run) return refuse(closedError(run));
    sendText(res, 201, 'application/json', JSON.stringify({ run_id: id, api_key: this.open(run) }));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const route = routeOf(req.url);
    if (route === RUNS_ROUTE && this.o.runForHeader) return this.mint(req, res);
    if (route === '/v1/traces' && this.o.traces) return this.o.traces(req, res);
    const adapter = this.adapters.get(route);
    if (!adapter)
      return sendError(res, chatWire, {
        status: 404,
        message: `Unknown route ${req.method} ${route} (the gateway serves POST ${[...this.adapters.keys()].join(', POST ')})`,
        type: 'invalid_request_error',
        code: 'unknown_url',
      });
    const reply = httpReply(res, adapter);
    if (req.method !== 'POST')
      return reply.error({
        status: 405,
        message: `Method ${req.method} not allowed on ${route} (use POST)`,
        type: 'invalid_request_error',
      });
    const run = this.identify(req);
    if ('status' in run) return reply.error(run);
    const up = upstreamFor(run, adapter);
    // From here to its answer the request holds its run open: a run is quiet only between requests.
    return run.meter.handling(async () =>
      this.call(run, adapter, await readBytes(req, this.bodies), req, reply, up, (to, pieces, reader, bounds, call) =>
        forward(to, call.upstreamPath, pieces, call.headers(to.apiKey), reader, bounds),
      ),
    );
  }

  /**
   * The Responses API's WebSocket mode (GET /v1/responses, Upgrade: websocket): the run is the one the
   * upgrade's key names; the upstream's own WebSocket is opened first (refused: the agent's upgrade is
   * refused with its status, and the agent falls back to HTTP), then each response.create frame is one
   * call of the run, braked, forwarded on the upstream's socket, metered and answered as a POST is.
   */
  private async upgrade(req: http.IncomingMessage, socket: Socket, head: Buffer): Promise<void> {
    const route = routeOf(req.url);
    const adapter = this.adapters.get(route);
    const refuse = (e: WireError) => refuseUpgrade(socket, e, adapter ?? chatWire);
    if (adapter?.name !== 'responses')
      return refuse({
        status: 404,
        message: `No WebSocket on ${route} (the gateway serves the Responses API's on /v1/responses)`,
        type: 'invalid_request_error',
        code: 'unknown_url',
      });
    const run = this.identify(req);
    if ('status' in run) return refuse(run);
    const up = upstreamFor(run, adapter);
    if ('status' in up) return refuse(up);
    let upstream: WebSocket | null = null;
    if (!run.tape?.replay) {
      const opened = await openUpstreamSocket(up, req.headers);
      if (!opened.ok) return refuse({ status: opened.status, message: opened.error, type: 'upstream_error' });
      upstream = opened.ws;
    }
    this.sockets.handleUpgrade(req, socket, head, (ws) => {
      upstream?.once('close', () => ws.close(1011, 'the upstream closed its WebSocket'));
      ws.once('close', () => upstream?.close());
      const sent: SentOn = { headers: req.headers, url: req.url, websocket: true };
      // One request at a time, in order, as the API answers a connection.
      let queue = Promise.resolve();
      ws.on('message', (data: Buffer, binary: boolean) => {
        const next = queue.then(() => {
          // The run may have ended since the upgrade: its key is refused from then on, as a POST's would be.
          const still = this.identify(req);
          if (still !== run) {
            socketReply(ws).error('status' in still ? still : unauthorized('This WebSocket belongs to another run.'));
            return ws.close();
          }
          return run.meter.handling(() =>
            this.call(
              run,
              adapter,
              binary ? { error: BINARY_FRAME } : { lease: ownLease(data) },
              sent,
              socketReply(ws),
              up,
              (to, pieces, reader, bounds) => forwardFrame(upstream!, to, pieces, reader, bounds),
            ),
          );
        });
        queue = next.catch((e: Error) =>
          socketReply(ws).error({ status: 500, message: `gateway error: ${redact(e.message)}`, type: 'server_error' }),
        );
        this.track(queue);
      });
    });
  }

  /** A request of a known run: checked against the brakes, forwarded (by `send`), metered, answered. */
  private async call(
    run: GatewayRun,
    adapter: WireAdapter,
    read: { lease: Lease } | { error: WireError },
    sentOn: SentOn,
    reply: Reply,
    up: Upstream | WireError,
    send: Send,
  ): Promise<void> {
    // A request of a known run that goes no further is one of its calls all the same: recorded with its error.
    const refuseCall = (e: WireError) => {
      run.meter.refused(`${REFUSED} (HTTP ${e.status} ${e.code ?? e.type}): ${e.message}`);
      reply.error(e);
    };
    if ('error' in read) return refuseCall(read.error);
    try {
      await this.withBody(run, adapter, read.lease, sentOn, reply, up, send, refuseCall);
    } finally {
      read.lease.drop();
    }
  }

  /** A request read whole: parsed, metered for what it adds, checked against the brakes, completed. */
  private async withBody(
    run: GatewayRun,
    adapter: WireAdapter,
    body: Lease,
    sentOn: SentOn,
    reply: Reply,
    up: Upstream | WireError,
    send: Send,
    refuseCall: (e: WireError) => void,
  ): Promise<void> {
    const remembered = this.conversations.get(run);
    const prior = remembered?.adapter === adapter.route ? remembered : null;
    const parsed = adapter.parseBytes(body.bytes, prior?.state ?? null, sentOn);
    if (!parsed.ok) return refuseCall(parsed.error);
    const call = parsed.call;
    if ('status' in up) return refuseCall(up);
    // Only the first call names the run's price: no table lookup on every later call.
    const price = run.meter.beforeFirstCall && !run.meter.stop ? run.priceOf?.(call.model) : undefined;
    if (price && 'unpriced' in price) {
      run.meter.end({ reason: 'error', detail: price.unpriced, step: run.meter.state.steps });
      this.o.onRunError?.(run.meter.runId, price.unpriced);
      return refuseCall({
        status: 400,
        message: price.unpriced,
        type: 'invalid_request_error',
        code: 'loopbench_unpriced_model',
      });
    }
    if (price) run.meter.priceAs(price);
    const counted = tally(call, prior, this.o.counter, run.meter.keepLog || run.tape !== undefined, adapter.route);
    this.conversations.set(run, counted.remember);
    if (run.spend?.halted) {
      const step = run.meter.state.steps;
      return refuseCall(
        brakeError(
          run.meter.end({
            reason: 'error',
            detail: `not continued at step ${step}: a call in this sweep was billed more than its request allowed, so the spend cap stopped every further call`,
            step,
          }),
        ),
      );
    }
    const admitted = run.meter.admit(counted.promptTokens, call.maxOutputTokens);
    if ('stop' in admitted) return refuseCall(brakeError(admitted.stop));
    await this.complete(run, up, adapter, call, counted, admitted.ticket, reply, send, body);
  }

  /** Forwards an admitted call (or answers it from the cassette), meters what came back, answers the agent. */
  private async complete(
    run: GatewayRun,
    up: Upstream,
    adapter: WireAdapter,
    call: WireCall<unknown>,
    counted: Tally<unknown>,
    ticket: Ticket,
    out: Reply,
    send: Send,
    request: Lease,
  ): Promise<void> {
    const { meter, tape } = run;
    const abandoned = out.abandoned;
    const model = up.model ?? call.model;
    const seed = call.seed ?? up.seed;
    // The answer's limit as sent: the agent's own, unless its budget lowered it.
    const sentLimit = ticket.lowered?.sent ?? call.maxOutputTokens;
    const chat = counted.messages && {
      model,
      messages: counted.messages,
      ...(counted.tools ? { tools: counted.tools } : {}),
      ...(sentLimit !== null ? { max_tokens: sentLimit } : {}),
      ...(call.temperature !== null ? { temperature: call.temperature } : {}),
      ...(seed !== undefined ? { seed } : {}),
    };
    const key = tape && chat ? tapeKey(tape, chat) : '';
    const reply = (e: WireError) => !abandoned() && out.error(e);
    const reader = adapter.reader(call);
    let outcome: Outcome;
    if (tape?.replay) {
      const hit = tape.replay.find(key);
      if (!hit) {
        const miss = `replay: ${tape.replay.file} has no recorded answer for this request (model ${tape.spec}, request ${key.slice(0, 12)}); record it again with --record`;
        meter.fail(ticket, miss, counted.messages);
        return void reply({ status: 400, message: miss, type: 'invalid_request_error', code: 'loopbench_replay_miss' });
      }
      reader.push(adapter.recorded(call, model, hit.response.message, hit.response.usage));
      outcome = { kind: 'answered' };
    } else {
      const left = meter.remainingMs();
      const byRun = left !== null && left < up.timeoutMs;
      const bounds = byRun
        ? {
            deadlineMs: left,
            deadlineCause: 'run_timeout' as const,
            deadlineText: `the run's --timeout (${meter.settings.limits.timeout_s} s)`,
          }
        : {
            deadlineMs: up.timeoutMs,
            deadlineCause: 'deadline' as const,
            deadlineText: `the call's deadline (--request-timeout ${up.timeoutMs / 1000} s)`,
          };
      const changes = {
        ...(up.model ? { model: up.model } : {}),
        ...(ticket.lowered ? { maxOutputTokens: ticket.lowered.sent } : {}),
        ...(up.seed !== undefined ? { seed: up.seed } : {}),
        includeUsage: true,
      };
      outcome = await send(
        up,
        call.forward(changes),
        reader,
        { ...bounds, cancels: this.cancels, written: request.hold() },
        call,
      );
    }
    const hungUp = abandoned() ? '; the agent had hung up' : '';
    if (outcome.kind === 'refused') {
      const error = `upstream ${outcome.status}: ${adapter.upstreamErrorMessage(outcome.body) ?? outcome.body.slice(0, 300)}`;
      meter.fail(ticket, error + hungUp, counted.messages);
      if (!abandoned())
        out.refused(outcome.status, outcome.body, { status: outcome.status, message: error, type: 'upstream_error' });
      return;
    }
    if (outcome.kind === 'failed') {
      // A call that went out is billed: with no answer to bill from, at its worst case.
      meter.fail(
        ticket,
        outcome.error + hungUp,
        counted.messages,
        outcome.sent ? worstCase(ticket, 'no whole answer arrived') : undefined,
      );
      const step = meter.state.steps;
      if (outcome.cause === 'run_timeout') {
        const limit = meter.settings.limits.timeout_s;
        return void reply(
          brakeError(
            meter.end({
              reason: 'timeout',
              detail: `timeout ${limit} s: the run's time ran out with a call in flight at step ${step}`,
              step,
              fired: { brake: 'timeout_s', value: meter.elapsedMs() / 1000, limit: limit! },
            }),
          ),
        );
      }
      // An answer larger than any real one: the upstream is broken, and the run ends as an error.
      if (outcome.cause === 'cap')
        meter.end({ reason: 'error', detail: `upstream error at step ${step}: ${outcome.error}`, step });
      return void reply({
        status: FAILURE_STATUS[outcome.cause],
        message: outcome.error,
        type: outcome.cause === 'deadline' || outcome.cause === 'idle' ? 'upstream_timeout' : 'upstream_error',
        code: `loopbench_upstream_${outcome.cause}`,
      });
    }
    const read = reader.end();
    if (!read.ok) {
      meter.fail(ticket, read.error + hungUp, counted.messages, worstCase(ticket, 'the answer could not be read'));
      return void reply({
        status: 502,
        message: read.error,
        type: 'upstream_error',
        code: 'loopbench_upstream_unreadable',
      });
    }
    const { message, finishReason, usage } = read.answer;
    const metered = meterUsage(usage, {
      promptTokens: counted.promptTokens,
      maxOutputTokens: ticket.maxOutputTokens,
      completionTokens: countAnswer(counted.remember, this.o.counter, message),
      promptBounded: call.textOnly,
    });
    if (metered.overReported) run.spend?.noteOverrun();
    if (tape?.record && chat)
      tape.record.add({
        key,
        model: tape.spec,
        scenario: tape.scenario,
        step: meter.state.steps + 1,
        role: 'act',
        request: requestParts(chat),
        message: tapeMessage(message),
        usage: metered.usage,
        latencyMs: 0,
        finishReason,
      });
    if (abandoned()) {
      meter.settle(ticket, metered, counted.messages, message, {
        delivered: false,
        error: 'the agent hung up before the answer: billed as the upstream answered, not delivered',
      });
      return;
    }
    const stop = meter.settle(ticket, metered, counted.messages, message, { delivered: true, finish: finishReason });
    if (stop) return void reply(brakeError(stop));
    out.answer(reader.clientBody());
  }
}

/** Sends an admitted call's bytes upstream and reads the answer into `reader`. */
type Send = (
  up: Upstream,
  pieces: Buffer[],
  reader: AnswerReader,
  bounds: CallBounds,
  call: WireCall<unknown>,
) => Promise<Outcome>;

/** Where a call's answer goes: its HTTP response, or frames on the agent's WebSocket. */
interface Reply {
  error(e: WireError): void;
  /** The upstream's refusal passed on: its body as sent (`fallback` when it sent none to pass on). */
  refused(status: number, body: string, fallback: WireError): void;
  answer(body: ReturnType<AnswerReader['clientBody']>): void;
  /** The agent hung up before its answer (the upstream answers, and bills, it all the same). */
  abandoned(): boolean;
}

function httpReply(res: http.ServerResponse, adapter: WireAdapter): Reply {
  let abandoned = false;
  res.once('close', () => (abandoned = !res.writableFinished));
  return {
    error: (e) => sendError(res, adapter, e),
    refused: (status, body, fallback) =>
      sendText(res, status, 'application/json', body || JSON.stringify(adapter.errorBody(fallback))),
    answer(body) {
      // One buffer, written with the headers in one go.
      const bytes = body.pieces.length === 1 ? body.pieces[0]! : Buffer.concat(body.pieces);
      res.writeHead(200, {
        'content-type': body.contentType,
        'content-length': bytes.length,
        'cache-control': 'no-cache',
      });
      res.end(bytes);
    },
    abandoned: () => abandoned,
  };
}

/** The Responses WebSocket: errors as the API's error frames, an answer as its events' frames. */
function socketReply(ws: WebSocket): Reply {
  const send = (frame: string) => ws.readyState === ws.OPEN && ws.send(frame);
  return {
    error: (e) => send(errorFrame(e)),
    // An upstream on a WebSocket refuses in an error frame, passed on as it came.
    refused: (_status, body, fallback) => send(isObject(json(body)) ? body : errorFrame(fallback)),
    answer(body) {
      for (const e of parseSse(Buffer.concat(body.pieces).toString('utf8'))) send(e.data);
    },
    abandoned: () => ws.readyState !== ws.OPEN,
  };
}

/** An upgrade refused with an HTTP answer (the agent falls back to POST, or stops on its status). */
function refuseUpgrade(socket: Socket, e: WireError, adapter: WireAdapter): void {
  const body = JSON.stringify(adapter.errorBody(e));
  socket.end(
    `HTTP/1.1 ${e.status} ${http.STATUS_CODES[e.status] ?? ''}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

function sendError(res: http.ServerResponse, adapter: WireAdapter, e: WireError): void {
  sendText(res, e.status, 'application/json', JSON.stringify(adapter.errorBody(e)));
}

function sendText(res: http.ServerResponse, status: number, contentType: string, text: string): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
