// Forwarding one request's bytes to the upstream and reading its answer, bounded three ways: a
// total deadline for the call (which the gateway also shortens to what is left of the run's
// --timeout), an idle deadline (no byte for so long), and a cap on the bytes of the answer. A
// failure says whether the request had been sent: a call sent is a call the upstream may bill.
import { Buffer } from 'node:buffer';
import http from 'node:http';
import https from 'node:https';
import { redact } from '../models/redact.ts';
import type { AnswerReader, WireFamily } from '../wire/adapter.ts';

export interface Upstream {
  /** Base URL, e.g. http://127.0.0.1:8787/v1, https://api.openai.com/v1, https://api.anthropic.com/v1. */
  url: string;
  /** Sent as its protocol sends a key (OpenAI: the bearer token; Anthropic: x-api-key); never logged, recorded or passed to the agent. */
  apiKey?: string;
  /** The one provider protocol it speaks; none: every one (the simulated models). */
  speaks?: WireFamily;
  /** Replaces the model the agent names (the run's model). */
  model?: string;
  /** Sent as `seed` when the agent sends none (the sim's answers follow the run's seed). */
  seed?: number;
  /** Total deadline of one call, in ms: from sending the request to the answer's last byte. */
  timeoutMs: number;
  /** Idle deadline, in ms: the call fails when the upstream sends nothing for this long. */
  idleMs?: number;
  /** The most bytes of one answer the gateway reads (held whole until metered). */
  maxAnswerBytes?: number;
}

export const DEFAULT_IDLE_MS = 60_000;
/** 16 MiB: a streamed answer of tens of thousands of tokens, framing included. */
export const DEFAULT_MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/** How an upstream's answer is read, over HTTP or its WebSocket: the byte cap, the idle deadline, and what to redact. */
export function answerLimits(up: Upstream, b: Pick<CallBounds, 'deadlineMs'>) {
  return {
    secrets: [up.apiKey],
    cap: up.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES,
    idleMs: Math.min(up.idleMs ?? DEFAULT_IDLE_MS, b.deadlineMs),
  };
}

/** An upstream's error body is passed on up to this much. */
const ERROR_BODY_KEEP = 64 * 1024;

export type FailureCause = 'unreachable' | 'deadline' | 'run_timeout' | 'idle' | 'cap' | 'dropped' | 'stopped';

export type Outcome =
  /** A 2xx answer, every byte of it pushed to the reader. */
  | { kind: 'answered' }
  /** The upstream answered with an error status (its body redacted; providers do not bill these). */
  | { kind: 'refused'; status: number; body: string }
  /** No whole answer: `sent` says whether the request had gone out (then the upstream may have billed it). */
  | { kind: 'failed'; cause: FailureCause; sent: boolean; error: string };

export interface CallBounds {
  /** This call's total deadline, in ms (the upstream's, or what is left of the run's timeout when less). */
  deadlineMs: number;
  /** Why the deadline is what it is: `run_timeout` when the run's timeout set it. */
  deadlineCause: 'deadline' | 'run_timeout';
  /** Read in the error when the deadline passes, e.g. "the run's --timeout 120 s". */
  deadlineText: string;
  /** The gateway stopping: each call in flight adds how to cut it here while it lasts. */
  cancels: Set<() => void>;
  /** Told once the request's bytes are no longer needed (its upstream request closed: written, or cut). */
  written?: () => void;
}

// Kept-alive connections to the upstream, shared by every run: a proxy must not pay a handshake per call.
const AGENTS = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };

/** Where to POST, as request options made once per upstream and path (parsing a URL per call costs). */
const targets = new WeakMap<Upstream, Map<string, http.RequestOptions & { secure: boolean }>>();

function targetOf(up: Upstream, path: string): http.RequestOptions & { secure: boolean } {
  let byPath = targets.get(up);
  if (!byPath) targets.set(up, (byPath = new Map()));
  let t = byPath.get(path);
  if (!t) {
    const url = new URL(`${up.url.replace(/\/+$/, '')}${path}`);
    const secure = url.protocol === 'https:';
    if (!secure && url.protocol !== 'http:') throw new Error(`${url.protocol} is not http or https`);
    t = {
      secure,
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port,
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      agent: AGENTS[url.protocol as 'http:' | 'https:'],
    };
    byPath.set(path, t);
  }
  return t;
}

const mib = (n: number) => `${(n / 1024 / 1024).toLocaleString('en-US', { maximumFractionDigits: 2 })} MiB`;

export function forward(
  up: Upstream,
  path: string,
  pieces: Buffer[],
  sendHeaders: Record<string, string>,
  reader: AnswerReader,
  b: CallBounds,
): Promise<Outcome> {
  const { secrets, cap, idleMs } = answerLimits(up, b);
  return new Promise((resolve) => {
    let settled = false;
    let sent = false;
    let target: ReturnType<typeof targetOf>;
    try {
      target = targetOf(up, path);
    } catch (e) {
      return resolve({
        kind: 'failed',
        cause: 'unreachable',
        sent: false,
        error: redact(`upstream unreachable: ${(e as Error).message}`, secrets),
      });
    }
    const { secure, ...options } = target;
    const length = pieces.reduce((n, p) => n + p.length, 0);
    const headers = { ...sendHeaders, 'content-type': 'application/json', 'content-length': length };
    const done = (o: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      b.cancels.delete(onAbort);
      resolve(o);
    };
    const fail = (cause: FailureCause, error: string) => {
      done({ kind: 'failed', cause, sent, error: redact(error, secrets) });
      req.destroy();
    };
    const req = (secure ? https : http).request({ ...options, headers }, (res) => {
      const status = res.statusCode ?? 502;
      res.on('aborted', () => fail('dropped', 'the upstream closed the connection before the end of its answer'));
      res.on('error', (e) => fail('dropped', `the upstream's answer broke off: ${e.message}`));
      if (status < 200 || status >= 300) {
        const kept: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          if (size < ERROR_BODY_KEEP) kept.push(c.subarray(0, ERROR_BODY_KEEP - size));
          size += c.length;
        });
        res.on('end', () =>
          done({ kind: 'refused', status, body: redact(Buffer.concat(kept).toString('utf8'), secrets) }),
        );
        return;
      }
      let size = 0;
      res.on('data', (c: Buffer) => {
        if (settled) return;
        size += c.length;
        if (size > cap)
          return fail(
            'cap',
            `the upstream's answer passed ${mib(cap)}, the most the gateway reads of one answer (--max-answer-mb)`,
          );
        reader.push(c);
      });
      res.on('end', () => done({ kind: 'answered' }));
    });
    const timer = setTimeout(() => fail(b.deadlineCause, `no whole answer within ${b.deadlineText}`), b.deadlineMs);
    const onAbort = () => fail('stopped', 'the gateway stopped with this call in flight');
    b.cancels.add(onAbort);
    req.setTimeout(idleMs, () => fail('idle', `the upstream sent nothing for ${idleMs / 1000} s (--idle-timeout)`));
    req.on('finish', () => (sent = true));
    if (b.written) req.once('close', b.written);
    req.on('error', (e) =>
      fail(
        sent ? 'dropped' : 'unreachable',
        sent ? `the connection to the upstream broke: ${e.message}` : `upstream unreachable: ${e.message}`,
      ),
    );
    for (const p of pieces) req.write(p);
    req.end();
  });
}
