// `bench serve`: an OpenAI-compatible HTTP server over the simulated models, so any agent, in any
// language, can be pointed at it and have its loop cost measured without spending money.
// Stateless like the sim itself: the answer depends only on the request (model → profile,
// seed, conversation), so served and in-process answers are identical.
import type { HttpRoute } from '../contracts/http-route.ts';
import type { CacheRule, StartSim } from '../contracts/sim-server.ts';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { UsageError } from '../contracts/errors.ts';
import { PrefixCache } from '../meter/prefix-cache.ts';
import { TokenCounter } from '../meter/tokens.ts';
import { ModelError, type ToolSpec, type Usage } from '../contracts/chat.ts';
import { listProfiles, loadProfile, type Profile } from '../sim/profile.ts';
import { SimModel } from '../sim/sim-model.ts';
import { mappingNotes, offerOf } from '../sim/offered-tools.ts';
import { loadAllScenarios } from '../scenario/loader.ts';
import { JsonlWriter } from '../results/jsonl.ts';
import { MAX_BODY, readBody } from '../wire/read-body.ts';
import type { WebSocket } from 'ws';
import { wsModule } from '../wire/ws-module.ts';
import { ignoredParts, READ_PARTS } from './ignored-parts.ts';
import { OffThreadCounter } from './offthread-count.ts';
import { pickFault, spoil, type Fault } from './faults.ts';
import type { Answer, WireAdapter } from '../wire/adapter.ts';
import { chatWire } from '../wire/chat/adapter.ts';
import { simRefusal, type CompletionRequest } from '../wire/chat/protocol.ts';
import { openaiError, wireError, type WireError } from '../wire/error.ts';
import { messagesWire } from '../wire/messages/adapter.ts';
import { responsesWire } from '../wire/responses/adapter.ts';
import type { ResponsesCall } from '../wire/responses/spelling.ts';
import { BINARY_FRAME, createBody, errorFrame, eventFrames } from '../wire/responses/websocket.ts';
import { routeOf } from '../wire/route-of.ts';
import { sseText } from '../wire/sse.ts';
import { keepIdleConnections } from '../wire/keep-alive.ts';
import { ResponseStore } from '../wire/store.ts';

export interface ServeOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Added before every answer (real time). */
  latencyMs: number;
  errorRate: number;
  faults: readonly Fault[];
  /** Seconds a 429 asks the client to wait. */
  retryAfterS: number;
  /** Answer every model name with this profile; otherwise the model name is the profile id. */
  profile?: string;
  promptCache: boolean;
  /** Whose prompt caching the usage follows (default OpenAI's), or per request by the model it names; Anthropic's also reports cache writes. */
  cacheBilling?: CacheRule;
  /** Per-request usage, one JSON line each. */
  logFile?: string;
  /** Fault draws; Math.random unless a test scripts them. */
  random?: () => number;
  /** POST /v1/traces (an OTLP receiver, given by the command line), when asked for. */
  traces?: HttpRoute;
  /** Told once per profile and set of offered tools when the sim plays the profile on tools that are not its own (sim/offered-tools.ts mappingNotes). */
  onToolMapping?: (profile: string, notes: string[]) => void;
  /** Told once per protocol and set of parts: what of a request the sim accepts but cannot act on (ignored-parts.ts). */
  onIgnored?: (route: string, parts: string[]) => void;
}

export interface UsageLine {
  time: string;
  /** The wire protocol: `chat`, `responses` or `messages`. */
  api: string;
  id: string | null;
  model: string | null;
  profile: string | null;
  stream: boolean;
  status: number;
  fault: Fault | null;
  messages: number;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  tool_calls: string[];
  latency_ms: number;
  error: string | null;
}

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Faults answered without writing a completion. */
const NO_ANSWER: ReadonlySet<Fault> = new Set(['reset', 'timeout', '429', '500']);

/** A private bench serve for the gateway's simulated runs: a free port of 127.0.0.1, no latency, no faults. */
export const startSim: StartSim = (o) =>
  startServe({ host: '127.0.0.1', port: 0, latencyMs: 0, errorRate: 0, faults: [], retryAfterS: 1, ...o });

export async function startServe(o: ServeOptions): Promise<RunningServer> {
  const counter = new TokenCounter(true);
  const offThread = new OffThreadCounter();
  const cache = new PrefixCache();
  const random = o.random ?? Math.random;
  const usage = new UsageLog(o.logFile);
  const profiles = new ProfileCache(o.profile);
  const toolMappings = new ToolMappings(o.onToolMapping);
  const ignored = new IgnoredParts(o.onIgnored);
  let served = 0;
  const responses = responsesWire(new ResponseStore()) as WireAdapter;
  const adapters = new Map<string, WireAdapter>(
    [chatWire as WireAdapter, responses, messagesWire(new ResponseStore()) as WireAdapter].map((a) => [a.route, a]),
  );
  // The Responses API's WebSocket mode on its route (wire/responses/websocket.ts); frames as large as a body may be.
  const sockets = new (wsModule().WebSocketServer)({ noServer: true, maxPayload: MAX_BODY });

  const server = http.createServer((req, res) => {
    void handle(req, res).catch((e) => {
      if (!res.headersSent) send(res, wireError(500, `internal error: ${(e as Error).message}`, 'server_error'));
      else res.destroy();
    });
  });
  keepIdleConnections(server);

  /** Routing: the models list, else one answer in the protocol of its route (parsed, maybe faulted, simulated, sent). */
  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    const route = url.pathname.replace(/\/+$/, '');
    if (route === '/v1/models' || route.startsWith('/v1/models/')) return modelsRoute(req, res, url, route, o.profile);
    if (route === '/v1/traces' && o.traces) return void o.traces(req, res);
    const wire = adapters.get(route);
    if (!wire)
      return send(
        res,
        wireError(
          404,
          `Unknown route ${req.method} ${url.pathname} (served: POST ${[...adapters.keys()].join(', POST ')}, GET /v1/models)`,
          'invalid_request_error',
          null,
          'unknown_url',
        ),
      );
    if (req.method !== 'POST') {
      return sendJson(
        res,
        405,
        wire.errorBody(wireError(405, `Method ${req.method} not allowed on ${route} (use POST)`)),
      );
    }
    const started = performance.now();
    const body = await readBody(req);
    const reply = httpReply(req, res, wire);
    if ('error' in body) return usage.for(wire).refuse(reply, started, null, body.error);
    return respond(wire, route, body.value, started, reply, false);
  }

  /** One request of a Responses WebSocket: each frame answered as its POST would be, one at a time, in order. */
  function serveSocket(ws: WebSocket): void {
    let queue = Promise.resolve();
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      queue = queue
        .then(() => {
          const started = performance.now();
          const reply = socketReply(ws, responses);
          const frame = isBinary ? { ok: false as const, error: BINARY_FRAME } : createBody(data.toString('utf8'));
          if (!frame.ok) return usage.for(responses).refuse(reply, started, null, frame.error);
          return respond(responses, responses.route, frame.body, started, reply, true);
        })
        .catch((e: Error) => reply500(socketReply(ws, responses), e));
    });
  }

  /** A request's body, parsed, maybe faulted, simulated and answered through `reply`; `socket`: it came on a WebSocket. */
  async function respond(
    wire: WireAdapter,
    route: string,
    value: unknown,
    started: number,
    reply: Reply,
    socket: boolean,
  ): Promise<void> {
    const log = usage.for(wire);
    const parsed = wire.parse(value);
    if (!parsed.ok) return log.refuse(reply, started, null, parsed.error);
    const { request, chat, stream } = parsed;
    if (socket) (request as ResponsesCall).socket = true;
    const refused = wire === chatWire ? simRefusal(request as CompletionRequest) : null;
    if (refused) return log.refuse(reply, started, { model: chat.model }, refused);
    const profile = profiles.get(chat.model);
    if (!profile)
      return log.refuse(
        reply,
        started,
        { model: chat.model },
        wireError(
          404,
          `The model '${chat.model}' does not exist: it names no simulated profile (known: ${listProfiles().join(', ')}) and no shipped scenario (bench scenarios lists them), and bench serve was started without --profile`,
          'invalid_request_error',
          'model',
          'model_not_found',
        ),
      );
    if (o.onToolMapping) toolMappings.see(profile, offerOf(chat).tools);
    if (o.onIgnored) ignored.see(route, value);
    const fault = pickFault(o.errorRate, o.faults, random);
    // Every answer, fault or not, arrives `latencyMs` after its request arrived: the work of writing
    // it is part of that time (as a provider's is), not added on top.
    const latency = () => sleep(Math.max(0, o.latencyMs - (performance.now() - started)));
    const info: CallInfo = { model: chat.model, profile: profile.id, stream, messages: chat.messages.length, fault };
    if (await answeredByFault(fault, reply, started, info, latency, log)) return;

    let answer: Answer;
    try {
      await offThread.precount(chat.messages, counter);
      const billing = typeof o.cacheBilling === 'function' ? o.cacheBilling(chat.model) : o.cacheBilling;
      const sim = new SimModel(profile.id, profile, counter, {
        promptCache: o.promptCache,
        cache,
        ...(billing ? { cacheBilling: billing } : {}),
      });
      // The `overlong` fault plays a provider that ignores max_tokens.
      const asked = fault === 'overlong' ? { ...chat, max_tokens: undefined } : chat;
      const r = await sim.complete(asked, { runId: '', scenario: '', step: 0, round: 0, role: 'act' });
      const uid = `${(++served).toString(36)}${Date.now().toString(36)}`;
      answer = {
        uid,
        model: chat.model,
        created: Math.floor(Date.now() / 1000),
        message: r.message,
        usage: r.usage,
        finishReason: r.finishReason ?? 'stop',
        ...(r.stopSequence !== undefined ? { stopSequence: r.stopSequence } : {}),
      };
    } catch (e) {
      if (!(e instanceof ModelError)) throw e;
      await latency();
      return log.refuse(reply, started, info, wireError(400, e.message));
    }
    if (fault) answer = spoil(answer, fault);
    // A warm-up (WebSocket mode's generate: false) reads its prompt and writes nothing: billed its input alone.
    if (socket && (request as ResponsesCall).body.generate === false)
      answer = {
        ...answer,
        message: null,
        finishReason: 'stop',
        usage: answer.usage && { ...answer.usage, completion_tokens: 0, reasoning_tokens: 0 },
      };
    await latency();
    const u = answer.usage;
    const toolCalls = (answer.message?.tool_calls ?? []).map((t) => t.function.name);
    log.line(started, { ...info, id: `${wire.idPrefix}${answer.uid}`, toolCalls }, 200, u, null);
    reply.answer(answer, request, stream);
    wire.answered(answer, request);
  }

  /** Faults that answer instead of the model (reset, timeout, 429, 500): true when one did. */
  async function answeredByFault(
    fault: Fault | null,
    reply: Reply,
    started: number,
    info: CallInfo,
    latency: () => Promise<void>,
    log: ApiLog,
  ): Promise<boolean> {
    if (fault && NO_ANSWER.has(fault)) await latency();
    if (fault === 'reset') {
      reply.drop();
      log.line(started, info, 0, null, 'connection reset (injected)');
      return true;
    }
    if (fault === 'timeout') {
      // The socket stays open until the client gives up or the server closes.
      log.line(started, info, 0, null, 'no answer (injected timeout)');
      return true;
    }
    if (fault === '429') {
      log.refuse(
        reply,
        started,
        info,
        wireError(
          429,
          'Rate limit reached for requests (injected by bench serve --error-rate).',
          'requests',
          null,
          'rate_limit_exceeded',
        ),
        { 'retry-after': String(o.retryAfterS) },
      );
      return true;
    }
    if (fault === '500') {
      log.refuse(
        reply,
        started,
        info,
        wireError(
          500,
          'The server had an error while processing your request (injected by bench serve --error-rate).',
          'server_error',
        ),
      );
      return true;
    }
    return false;
  }

  server.on('upgrade', (req, socket, head) => {
    const route = routeOf(req.url);
    if (route !== responses.route) {
      socket.end(`HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`);
      return;
    }
    sockets.handleUpgrade(req, socket, head, serveSocket);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(new UsageError(`cannot listen on ${o.host}:${o.port} (${e.code ?? e.message})`)),
    );
    server.listen(o.port, o.host, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  const host = o.host.includes(':') ? `[${o.host}]` : o.host;
  return {
    url: `http://${host}:${port}/v1`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          usage.close();
          void offThread.close().then(resolve);
        });
        server.closeAllConnections();
        for (const ws of sockets.clients) ws.terminate();
      }),
  };
}

/** Simulated profiles by model name (or the one --profile names); a request names a profile by id only, never a file path. */
class ProfileCache {
  private readonly loaded = new Map<string, Profile>();

  constructor(private readonly fixed: string | undefined) {
    if (fixed) this.get(fixed);
  }

  private scenarioProfiles: Map<string, string> | undefined;

  /** The profile a request's model plays — a profile id, or a shipped scenario's id (its profile) — or undefined when it names neither. */
  get(model: string): Profile | undefined {
    let id = this.fixed ?? model;
    if (!this.fixed && !listProfiles().includes(id)) {
      this.scenarioProfiles ??= new Map(loadAllScenarios().map((s) => [s.id, s.profile]));
      const viaScenario = this.scenarioProfiles.get(id);
      if (viaScenario === undefined) return undefined;
      id = viaScenario;
    }
    let p = this.loaded.get(id);
    if (!p) this.loaded.set(id, (p = loadProfile(id)));
    return p;
  }
}

/** Says once per profile and set of offered tools how the sim plays the profile on them (when it has something to say). */
class ToolMappings {
  private readonly seen = new Set<string>();

  constructor(private readonly tell: ServeOptions['onToolMapping']) {}

  see(profile: Profile, offered: ToolSpec[]): void {
    if (!this.tell || offered.length === 0) return;
    const key = `${profile.id}\0${JSON.stringify(offered)}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    const notes = mappingNotes(profile, offered);
    if (notes.length) this.tell(profile.id, notes);
  }
}

/** Says once per protocol and set of parts what of its requests the sim leaves unread. */
class IgnoredParts {
  private readonly seen = new Set<string>();

  constructor(private readonly tell: ServeOptions['onIgnored']) {}

  see(route: string, body: unknown): void {
    const read = READ_PARTS[route];
    if (!this.tell || !read) return;
    const parts = ignoredParts(body, read);
    const key = `${route}\0${parts.join('\0')}`;
    if (parts.length === 0 || this.seen.has(key)) return;
    this.seen.add(key);
    this.tell(route, parts);
  }
}

type CallInfo = {
  model?: string;
  profile?: string;
  stream?: boolean;
  messages?: number;
  fault?: Fault | null;
  id?: string;
  toolCalls?: string[];
};

/** What one protocol's requests write to the usage log, and how its refusals are sent. */
interface ApiLog {
  /** An error answer in the protocol's shape, logged. */
  refuse(
    reply: Reply,
    started: number,
    info: CallInfo | null,
    error: WireError,
    headers?: Record<string, string>,
  ): void;
  line(started: number, i: CallInfo, status: number, usage: Usage | null, error: string | null): void;
}

/** `--log FILE`: one JSON line per request, answered or refused. */
class UsageLog {
  private readonly out: JsonlWriter | null;

  constructor(file: string | undefined) {
    this.out = file ? new JsonlWriter(file) : null;
  }

  for(wire: WireAdapter): ApiLog {
    return {
      refuse: (reply, started, info, error, headers) => {
        this.line(wire.name, started, info ?? {}, error.status, null, error.message);
        reply.error(error, headers);
      },
      line: (started, i, status, usage, error) => this.line(wire.name, started, i, status, usage, error),
    };
  }

  private line(
    api: string,
    started: number,
    i: CallInfo,
    status: number,
    usage: Usage | null,
    error: string | null,
  ): void {
    if (!this.out) return;
    const line: UsageLine = {
      time: new Date().toISOString(),
      api,
      id: i.id ?? null,
      model: i.model ?? null,
      profile: i.profile ?? null,
      stream: i.stream ?? false,
      status,
      fault: i.fault ?? null,
      messages: i.messages ?? 0,
      prompt_tokens: usage?.prompt_tokens ?? 0,
      completion_tokens: usage?.completion_tokens ?? 0,
      cached_tokens: usage?.cached_tokens ?? 0,
      cache_write_tokens: usage?.cache_write_tokens ?? 0,
      reasoning_tokens: usage?.reasoning_tokens ?? 0,
      tool_calls: i.toolCalls ?? [],
      latency_ms: Math.round(performance.now() - started),
      error,
    };
    this.out.write(line);
    this.out.flush();
  }

  close(): void {
    this.out?.close();
  }
}

/** GET /v1/models and /v1/models/{id}: the simulated profiles, as OpenAI lists models. */
function modelsRoute(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  url: URL,
  route: string,
  fixed: string | undefined,
): void {
  if (req.method !== 'GET')
    return send(res, wireError(405, `Method ${req.method} not allowed on ${url.pathname} (use GET)`));
  const data = (fixed ? [fixed] : listProfiles()).map((id) => ({
    id,
    object: 'model',
    created: 0,
    owned_by: 'loopbench-sim',
  }));
  if (route === '/v1/models') return sendJson(res, 200, { object: 'list', data });
  const id = decodeURIComponent(route.slice('/v1/models/'.length));
  const model = fixed ? { ...data[0]!, id } : data.find((m) => m.id === id);
  return model
    ? sendJson(res, 200, model)
    : send(
        res,
        wireError(404, `The model '${id}' does not exist`, 'invalid_request_error', 'model', 'model_not_found'),
      );
}

/** Where one request's answer goes: its HTTP response, or frames on its WebSocket. */
interface Reply {
  error(e: WireError, headers?: Record<string, string>): void;
  answer(a: Answer, request: unknown, stream: boolean): void;
  /** The `reset` fault: the connection cut with no answer. */
  drop(): void;
}

function httpReply(req: http.IncomingMessage, res: http.ServerResponse, wire: WireAdapter): Reply {
  return {
    error(e, headers) {
      for (const [k, v] of Object.entries(headers ?? {})) res.setHeader(k, v);
      sendJson(res, e.status, wire.errorBody(e));
    },
    answer(a, request, stream) {
      if (!stream) return sendJson(res, 200, wire.render(a, request));
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      res.end(sseText(wire.events(a, request)));
    },
    drop: () => req.socket.destroy(),
  };
}

/** The Responses API's WebSocket: an error as its error frame, an answer as its events' frames. */
function socketReply(ws: WebSocket, wire: WireAdapter): Reply {
  const send = (frame: string) => ws.readyState === ws.OPEN && ws.send(frame);
  return {
    error: (e, headers) => send(errorFrame(e, headers)),
    answer(a, request) {
      for (const f of eventFrames(wire.events(a, request))) send(f);
    },
    drop: () => ws.terminate(),
  };
}

function reply500(reply: Reply, e: Error): void {
  reply.error(wireError(500, `internal error: ${e.message}`, 'server_error'));
}

function send(res: http.ServerResponse, e: WireError): void {
  sendJson(res, e.status, openaiError(e));
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
