// POST /v1/traces cannot be crashed by what it is sent: every malformed body is a 400 naming the bad
// field (or 413/415), the process stays up, and what it took before is imported when it stops. After a
// SIGKILL, every whole line already on disk is imported once: by the next start, or by bench import.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunRecord, StepRecord } from '../src/contracts/records.ts';
import { benchInProcess, spawnBench, type Spawned } from './helpers/cli.ts';
import { patient } from './helpers/patient.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-traces-receiver-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const jsonl = <T>(file: string): T[] =>
  fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as T);

/** The base URL once bench serve says it listens (waits for its stdout, no polling). */
function started(s: Spawned): Promise<string> {
  return new Promise((resolve, reject) => {
    const look = () => {
      const m = s.stdout().match(/(http:\/\/127\.0\.0\.1:\d+)\/v1/);
      if (m) resolve(m[1]!);
    };
    s.child.stdout!.on('data', look);
    void s.done.then((d) => reject(new Error(`bench serve ended before it listened: ${d.stderr}`)));
    look();
  });
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
/** One chat span of conversation `c`, call `i`, as an instrumented agent posts it (OTLP/JSON). */
function chatPost(c: number, i: number): string {
  const t0 = BigInt(Date.parse('2026-06-01T09:00:00Z') + c * 100_000 + i * 1000) * 1_000_000n;
  const attr = (key: string, value: object) => ({ key, value });
  const span = {
    traceId: hex(c + 1, 32),
    spanId: hex(c * 100 + i + 1, 16),
    name: 'chat gpt-4o-mini',
    kind: 3,
    startTimeUnixNano: String(t0),
    endTimeUnixNano: String(t0 + 500_000_000n),
    attributes: [
      attr('gen_ai.operation.name', { stringValue: 'chat' }),
      attr('gen_ai.request.model', { stringValue: 'gpt-4o-mini' }),
      attr('gen_ai.conversation.id', { stringValue: `conv-${c}` }),
      attr('gen_ai.usage.input_tokens', { intValue: String(1000 + i) }),
      attr('gen_ai.usage.output_tokens', { intValue: '20' }),
    ],
  };
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [attr('service.name', { stringValue: 'load' })] },
        scopeSpans: [{ scope: { name: 'agent' }, spans: [span] }],
      },
    ],
  });
}

const JSON_TYPE = { 'content-type': 'application/json' };
const post = (base: string, body: string) => fetch(`${base}/v1/traces`, { method: 'POST', headers: JSON_TYPE, body });

/** One POST on a connection of its own (a refused body may end its connection; no later request shares it). */
function postAlone(
  base: string,
  body: string | Buffer,
  headers: Record<string, string> = JSON_TYPE,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}/v1/traces`, { method: 'POST', headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('hostile bodies', () => {
  it(
    'each is refused with the path of the bad field (400) or its size (413), the receiver stays up and imports what it took at stop',
    async () => {
      const dir = path.join(tmp, 'hostile');
      const s = spawnBench(['serve', '--port', '0', '--traces', dir, '--log', path.join(tmp, 'hostile-usage.jsonl')]);
      const base = await started(s);
      const bad: Array<[string, string | Buffer, Record<string, string> | undefined, number, RegExp]> = [
        ['a null resource', '{"resourceSpans":[null]}', undefined, 400, /^resourceSpans\[0\]: .*expected object/],
        [
          'scopeSpans a number',
          '{"resourceSpans":[{"scopeSpans":5}]}',
          undefined,
          400,
          /^resourceSpans\[0\]\.scopeSpans: .*expected array/,
        ],
        ['[null]', '[null]', undefined, 400, /^\(top level\): .*expected object/],
        ['[1]', '[1]', undefined, 400, /^\(top level\): .*expected object/],
        [
          'a span without ids',
          '{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"x"}]}]}]}',
          undefined,
          400,
          /^resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]\.traceId: /,
        ],
        [
          '1e18 input tokens',
          chatPost(0, 0).replace('"1000"', '"1000000000000000000"'),
          undefined,
          400,
          /spans\[0\]\.attributes\[3\]\.value: gen_ai\.usage\.input_tokens "1000000000000000000" is over the ceiling of 1,000,000,000 tokens a call/,
        ],
        [
          'negative tokens',
          chatPost(0, 0).replace('"20"', '-20'),
          undefined,
          400,
          /attributes\[4\]\.value: gen_ai\.usage\.output_tokens -20 is negative/,
        ],
        [
          'NaN tokens',
          chatPost(0, 0).replace('{"intValue":"20"}', '{"doubleValue":"NaN"}'),
          undefined,
          400,
          /gen_ai\.usage\.output_tokens "NaN" is not a number/,
        ],
        [
          '100k-deep JSON',
          `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`,
          undefined,
          400,
          /nested deeper than 64 levels/,
        ],
        [
          '100k-deep resourceSpans',
          `{"resourceSpans":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
          undefined,
          400,
          /^resourceSpans\[0\]\[0\].*nested deeper than 64 levels/,
        ],
        ['not JSON', 'password=hunter2', undefined, 400, /not an OTLP ExportTraceServiceRequest \(JSON\)/],
        [
          'not protobuf',
          'password=hunter2',
          { 'content-type': 'application/x-protobuf' },
          400,
          /not an OTLP ExportTraceServiceRequest \(protobuf\)/,
        ],
        [
          'a gzip bomb',
          zlib.gzipSync(Buffer.alloc(200 * 1024 * 1024)),
          { 'content-type': 'application/json', 'content-encoding': 'gzip' },
          413,
          /larger than 33554432 bytes once gunzipped/,
        ],
        ['not gzip', 'plain', { 'content-type': 'application/json', 'content-encoding': 'gzip' }, 400, /not gzip/],
        ['100 MB', Buffer.alloc(100 * 1024 * 1024, 0x20), undefined, 413, /larger than 33554432 bytes/],
      ];
      await post(base, chatPost(1, 0)).then((r) => expect(r.status).toBe(200));
      for (const [name, body, headers, status, message] of bad) {
        const r = await postAlone(base, body, headers);
        expect(r.status, name).toBe(status);
        const text = (JSON.parse(r.text) as { error: { message: string } }).error.message;
        expect(text, name).toMatch(message);
        expect(text, name).not.toContain('hunter2');
      }
      // Still up, and still taking spans.
      await post(base, chatPost(1, 1)).then((r) => expect(r.status).toBe(200));
      s.child.kill('SIGINT');
      const done = await s.done;
      expect(done.code, done.stderr).toBe(130);
      expect(done.stdout).toMatch(/imported 1 run\(s\), 2 model call\(s\) from 2 span\(s\) posted to \/v1\/traces/);
      expect(jsonl<RunRecord>(path.join(dir, 'runs.jsonl')).map((r) => [r.run_id, r.steps, r.input_tokens])).toEqual([
        ['load_conv-1', 2, 2001],
      ]);
    },
    patient(120_000),
  );
});

describe('a crash mid-ingest', () => {
  const CONVERSATIONS = 200;
  const CALLS = 10;
  const CLIENTS = 50;
  const dir = path.join(tmp, 'killed');
  /** bench serve receiving traces into `dir`: the server that is killed, and each one started after it. */
  const serveTraces = () =>
    spawnBench(['serve', '--port', '0', '--traces', dir, '--log', path.join(tmp, 'killed-usage.jsonl')]);

  it(
    '2,000 posts from 50 clients, SIGKILL, restart: every whole line is imported once (and bench import of the directory agrees)',
    async () => {
      const first = serveTraces();
      const base = await started(first);
      const posts = Array.from({ length: CONVERSATIONS * CALLS }, (_, k) =>
        chatPost(k % CONVERSATIONS, Math.floor(k / CONVERSATIONS)),
      );
      let next = 0;
      const statuses: number[] = [];
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          while (next < posts.length) statuses.push((await post(base, posts[next++]!)).status);
        }),
      );
      expect(statuses.filter((x) => x === 200)).toHaveLength(CONVERSATIONS * CALLS);
      first.child.kill('SIGKILL');
      const killed = await first.done;
      expect(killed.signal).toBe('SIGKILL');
      const file = path.join(dir, 'traces.otlp.jsonl');
      // A request cut short as a crash leaves it: a partial last line, never acknowledged.
      fs.appendFileSync(file, '{"resourceSpans":[{"scopeSpa');
      expect(fs.existsSync(path.join(dir, 'runs.jsonl'))).toBe(false);

      // bench import of the directory: every whole line; the cut one is named, and the exit says so.
      const copy = path.join(tmp, 'killed-copy');
      fs.cpSync(dir, copy, { recursive: true });
      const imported = await benchInProcess([
        'import',
        copy,
        '--format',
        'otlp',
        '-o',
        path.join(tmp, 'killed-import'),
        '--no-report',
      ]);
      expect(imported.code).toBe(2);
      expect(imported.stderr).toContain(
        `traces.otlp.jsonl:${CONVERSATIONS * CALLS + 1}: not JSON: a last line with no newline after it, cut short`,
      );
      expect(imported.stdout).toMatch(
        new RegExp(`imported ${CONVERSATIONS} run\\(s\\), ${CONVERSATIONS * CALLS} agent step\\(s\\); 1 `),
      );

      const second = serveTraces();
      await started(second);
      second.child.kill('SIGINT');
      const done = await second.done;
      expect(done.code, `${String(done.signal)} ${done.stderr}`).toBe(130);
      expect(done.stderr).toMatch(
        /ended in a partial line \(28 byte\(s\) of a request cut short by a crash, never acknowledged\): cut off/,
      );
      expect(done.stdout).toMatch(
        new RegExp(
          `imported ${CONVERSATIONS} run\\(s\\), ${CONVERSATIONS * CALLS} model call\\(s\\) from 0 span\\(s\\) posted to /v1/traces \\(and the lines an earlier start left on disk\\)`,
        ),
      );
      const runs = jsonl<RunRecord>(path.join(dir, 'runs.jsonl'));
      const steps = jsonl<StepRecord>(path.join(dir, 'steps.jsonl'));
      expect(runs).toHaveLength(CONVERSATIONS);
      expect(new Set(runs.map((r) => r.run_id)).size).toBe(CONVERSATIONS);
      expect(runs.every((r) => r.steps === CALLS)).toBe(true);
      expect(steps).toHaveLength(CONVERSATIONS * CALLS);
      // Σ over conversations of Σ_i (1000 + i): each call counted once.
      expect(runs.reduce((n, r) => n + r.input_tokens, 0)).toBe(
        CONVERSATIONS * (CALLS * 1000 + (CALLS * (CALLS - 1)) / 2),
      );
      // A third start finds the spans imported: it refuses rather than import them twice.
      const third = await spawnBench(['serve', '--port', '0', '--traces', dir]).done;
      expect(third.code).toBe(2);
      expect(third.stderr).toMatch(/already holds results/);
    },
    patient(180_000),
  );
});
