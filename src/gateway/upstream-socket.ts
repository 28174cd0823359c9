// The upstream end of a Responses WebSocket the gateway relays: one upstream connection per agent
// connection, opened before the agent's upgrade is accepted (an upstream without WebSocket mode has
// the agent's upgrade refused with its status, so the agent falls back to HTTP as it would against
// the upstream itself), and over it each admitted response.create sent and its events read, bounded
// as an HTTP call is (deadline, idle deadline, byte cap; upstream.ts). Events are handed to the
// protocol's reader as the server-sent events a streamed POST would have carried, so the one reader
// meters both transports. Over one connection the upstream keeps its responses (previous_response_id
// with store: false), which a translation to HTTP could not.
import { Buffer } from 'node:buffer';
import type WebSocket from 'ws';
import { redact } from '../models/redact.ts';
import type { AnswerReader } from '../wire/adapter.ts';
import { MAX_BODY } from '../wire/read-body.ts';
import { wsModule } from '../wire/ws-module.ts';
import { endsAnswer } from '../wire/responses/websocket.ts';
import { json } from '../wire/sse.ts';
import {
  answerLimits,
  DEFAULT_MAX_ANSWER_BYTES,
  type CallBounds,
  type FailureCause,
  type Outcome,
  type Upstream,
} from './upstream.ts';

/** Headers of the agent's upgrade passed on: the protocol's own (its beta opt-in), never its key. */
const PASSED = ['openai-beta'];
/** The beta opt-in Codex CLI sends with its upgrade, so a probe is answered as Codex would be. */
const CODEX_BETA = 'responses_websockets=2026-02-06';
/** How long a probe waits for the upstream's answer to its upgrade: past it, the upstream has none. */
const PROBE_TIMEOUT_MS = 5000;

/** Opens the upstream's Responses WebSocket, or says why not (its HTTP status when it answered the upgrade). */
export function openUpstreamSocket(
  up: Upstream,
  agentHeaders: Record<string, string | string[] | undefined>,
): Promise<{ ok: true; ws: WebSocket } | { ok: false; status: number; error: string }> {
  const headers: Record<string, string> = {};
  for (const h of PASSED) if (typeof agentHeaders[h] === 'string') headers[h] = agentHeaders[h];
  if (up.apiKey) headers.authorization = `Bearer ${up.apiKey}`;
  const secrets = [up.apiKey];
  return new Promise((resolve) => {
    let ws: WebSocket;
    try {
      ws = new (wsModule())(`${up.url.replace(/\/+$/, '').replace(/^http/, 'ws')}/responses`, {
        headers,
        handshakeTimeout: up.timeoutMs,
        maxPayload: up.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES,
      });
    } catch (e) {
      return resolve({
        ok: false,
        status: 502,
        error: redact(`upstream unreachable: ${(e as Error).message}`, secrets),
      });
    }
    ws.once('open', () => resolve({ ok: true, ws }));
    ws.once('unexpected-response', (_req, res) => {
      res.resume();
      resolve({
        ok: false,
        status: res.statusCode ?? 502,
        error: `the upstream refused the WebSocket upgrade (HTTP ${res.statusCode})`,
      });
      ws.terminate();
    });
    ws.once('error', (e) =>
      resolve({ ok: false, status: 502, error: redact(`upstream unreachable: ${e.message}`, secrets) }),
    );
  });
}

/**
 * Whether the upstream accepts the Responses WebSocket: one upgrade with the run's key, closed as soon
 * as it opens. Only the answer is kept (no error text, which might name the key): any failure is a no.
 */
export async function probeUpstreamSocket(up: Upstream, timeoutMs = PROBE_TIMEOUT_MS): Promise<boolean> {
  const opened = await openUpstreamSocket({ ...up, timeoutMs }, { 'openai-beta': CODEX_BETA });
  if (opened.ok) opened.ws.terminate();
  return opened.ok;
}

/** Sends one request frame and reads its answer's frames into `reader`, as `forward` does an HTTP call. */
export function forwardFrame(
  ws: WebSocket,
  up: Upstream,
  pieces: Buffer[],
  reader: AnswerReader,
  b: CallBounds,
): Promise<Outcome> {
  const { secrets, cap, idleMs } = answerLimits(up, b);
  return new Promise((resolve) => {
    let sent = false;
    let size = 0;
    let idle: NodeJS.Timeout | undefined;
    let settled = false;
    const done = (o: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(idle);
      b.cancels.delete(onAbort);
      ws.off('message', onMessage);
      ws.off('close', onClose);
      resolve(o);
    };
    const fail = (cause: FailureCause, error: string) => {
      done({ kind: 'failed', cause, sent, error: redact(error, secrets) });
      // The connection is left in an unknown state: the agent's next request needs a new one.
      ws.terminate();
    };
    const onIdle = () => fail('idle', `the upstream sent nothing for ${idleMs / 1000} s (--idle-timeout)`);
    const onMessage = (data: Buffer, binary: boolean) => {
      clearTimeout(idle);
      idle = setTimeout(onIdle, idleMs);
      size += data.length;
      if (size > cap)
        return fail(
          'cap',
          `the upstream's answer passed the ${cap} bytes the gateway reads of one answer (--max-answer-mb)`,
        );
      if (binary) return fail('dropped', 'the upstream sent a binary WebSocket message');
      const text = data.toString('utf8');
      const frame = json(text) as { type?: unknown; status?: unknown } | null;
      if (frame?.type === 'error')
        return done({
          kind: 'refused',
          status: typeof frame.status === 'number' && frame.status >= 400 ? frame.status : 502,
          body: redact(text, secrets),
        });
      reader.push(Buffer.from(`data: ${text}\n\n`));
      if (endsAnswer(frame)) done({ kind: 'answered' });
    };
    const onClose = () => fail('dropped', 'the upstream closed the WebSocket before the end of its answer');
    const onAbort = () => fail('stopped', 'the gateway stopped with this call in flight');
    const timer = setTimeout(() => fail(b.deadlineCause, `no whole answer within ${b.deadlineText}`), b.deadlineMs);
    b.cancels.add(onAbort);
    if (ws.readyState !== ws.OPEN) return fail('unreachable', 'the upstream WebSocket is closed');
    ws.on('message', onMessage);
    ws.on('close', onClose);
    idle = setTimeout(onIdle, idleMs);
    const frame = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
    if (frame.length > MAX_BODY) return fail('unreachable', `the request frame is larger than ${MAX_BODY} bytes`);
    ws.send(frame, { binary: false }, (e) => {
      if (e) fail('unreachable', `upstream unreachable: ${e.message}`);
      else sent = true;
    });
  });
}
