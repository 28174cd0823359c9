// The real-model flags and `bench serve` as a user runs them: child processes, real files, exit codes.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../src/contracts/errors.ts';
import { transportFrom } from '../src/runner/transport.ts';
import { buildSweepSpec, type RunOptions } from '../src/runner/plan.ts';
import { serveOptions } from '../src/cli/serve.ts';
import { RUN_DEFAULTS } from '../src/runner/run-defaults.ts';
import { spawnServe } from '../src/serve/spawn.ts';
import type { RunningServer } from '../src/serve/server.ts';
import { benchAsync, FAKE_KEY, serve } from './serve-helpers.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-models-cli-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Every file under a directory, recursively. */
function files(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

describe('a run with a key: the key appears in no artifact', () => {
  let server: RunningServer;
  const serveLog = path.join(tmp, 'serve.jsonl');
  const out = path.join(tmp, 'keyed');
  const cassette = path.join(tmp, 'keyed.json');
  let r: Awaited<ReturnType<typeof benchAsync>>;

  beforeAll(async () => {
    // Some calls fail (500, reset, no usage) so error messages are among the artifacts too. One run at a
    // time, so the scripted faults fall on the same calls each time: some runs end in error, not all (a
    // sweep in which every run errs exits 1).
    let x = 7;
    const random = () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    server = await serve({
      logFile: serveLog,
      errorRate: 0.15,
      faults: ['500', 'reset', 'no-usage', 'bad-args'],
      random,
    });
    r = await benchAsync(
      [
        '--model',
        'openai:seed-calibrated',
        '--base-url',
        server.url,
        '--scenario',
        'seed-calibrated',
        '--steps',
        '4',
        '-n',
        '4',
        '--max-retries',
        '0',
        '-j',
        '1',
        '--record',
        cassette,
        '--out',
        out,
        '--json',
        '--debug',
      ],
      { OPENAI_API_KEY: FAKE_KEY },
    );
    await server.close();
  });

  it('runs, with some runs ending in error', () => {
    expect(r.code).toBe(0);
    const runs = fs
      .readFileSync(path.join(out, 'runs.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(runs).toHaveLength(4);
    expect(runs.some((x) => x.stop_reason === 'error')).toBe(true);
    expect(runs.some((x) => x.stop_reason !== 'error')).toBe(true);
  });

  it('greps every artifact, the cassette, the server log, stdout and stderr: no key, no Authorization header', () => {
    const artifacts = [...files(out), cassette, serveLog];
    expect(artifacts.length).toBeGreaterThan(8);
    for (const f of artifacts) {
      const text = fs.readFileSync(f, 'utf8');
      expect(text, f).not.toContain('SECRET123');
      expect(text, f).not.toMatch(/authorization|bearer/i);
    }
    expect(r.stdout + r.stderr).not.toContain('SECRET123');
  });

  it('--replay re-runs it offline, without a key or a server', async () => {
    const again = await benchAsync(
      [
        '--replay',
        cassette,
        '--scenario',
        'seed-calibrated',
        '--steps',
        '3',
        '-n',
        '4',
        '--out',
        path.join(tmp, 'replayed'),
        '--json',
      ],
      {},
    );
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    const json = JSON.parse(again.stdout);
    expect(json.configs[0].settings.model).toBe('openai:seed-calibrated');
  });
});

describe('bad input: one line, exit 2, nothing written', () => {
  it('no OPENAI_API_KEY: names it, before any results directory exists', async () => {
    const out = path.join(tmp, 'no-key');
    const r = await benchAsync(['--model', 'openai:gpt-4o-mini', '--out', out], {});
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^bench: OPENAI_API_KEY is not set: --model openai:gpt-4o-mini needs it/);
    expect(fs.existsSync(out)).toBe(false);
  });

  // The same checks the run command makes before it writes anything, called in process (fast).
  const validate = (flags: Partial<RunOptions>, env: NodeJS.ProcessEnv) => {
    const o = { ...RUN_DEFAULTS, ...flags };
    buildSweepSpec(o, transportFrom(o, env));
  };
  const key = { OPENAI_API_KEY: FAKE_KEY };
  const cases: Array<[string, Partial<RunOptions>, RegExp, NodeJS.ProcessEnv?]> = [
    ['empty openai model', { model: 'openai:' }, /--model openai:: name the model/],
    [
      'bad --base-url',
      { model: 'openai:x', baseUrl: 'localhost:8787' },
      /--base-url: 'localhost:8787' is not http or https/,
    ],
    ['unparsable --base-url', { model: 'openai:x', baseUrl: 'http://' }, /--base-url: 'http:\/\/' is not a URL/],
    [
      'bad OPENAI_BASE_URL',
      { model: 'openai:x' },
      /OPENAI_BASE_URL: 'nope' is not a URL/,
      { ...key, OPENAI_BASE_URL: 'nope' },
    ],
    ['bad --request-timeout', { requestTimeout: '0' }, /--request-timeout: 0 is below the minimum/],
    ['bad --max-retries', { maxRetries: '1.5' }, /--max-retries: '1.5' is not a whole number/],
    ['negative --max-retries', { maxRetries: '-1' }, /--max-retries: -1 is below the minimum 0/],
    ['--record with --replay', { record: 'a.json', replay: 'b.json' }, /--record and --replay do not go together/],
    ['missing cassette', { replay: 'nope.json' }, /nope\.json: cannot read cassette \(ENOENT\)/],
    ['empty replay spec', { model: 'replay:' }, /--model replay:: name the cassette file/],
  ];
  it.each(cases)('%s', (_name, flags, message, env) => {
    expect(() => validate(flags, env ?? key)).toThrow(UsageError);
    expect(() => validate(flags, env ?? key)).toThrow(message);
  });

  it('bench run --help and bench serve --help document the flags', async () => {
    const run = await benchAsync(['run', '--help'], {});
    for (const f of ['--base-url', '--request-timeout', '--max-retries', '--record', '--replay', 'openai:<model>'])
      expect(run.stdout).toContain(f);
    const s = await benchAsync(['serve', '--help'], {});
    for (const f of [
      '--port',
      '--host',
      '--latency',
      '--error-rate',
      '--faults',
      '--retry-after',
      '--profile',
      '--prompt-cache',
      '--log',
    ])
      expect(s.stdout).toContain(f);
  });
});

describe('bench serve flags', () => {
  const base = {
    port: '0',
    host: '127.0.0.1',
    latency: '0',
    errorRate: '0',
    faults: '429,500',
    retryAfter: '1',
    promptCache: 'off',
  };
  it('parses good values', () => {
    expect(
      serveOptions({
        ...base,
        latency: '200',
        errorRate: '0.25',
        faults: 'reset,timeout,empty,no-usage,bad-args',
        profile: 'tiny-agent',
        promptCache: 'on',
        log: 'x.jsonl',
      }),
    ).toMatchObject({
      latencyMs: 200,
      errorRate: 0.25,
      faults: ['reset', 'timeout', 'empty', 'no-usage', 'bad-args'],
      profile: 'tiny-agent',
      promptCache: true,
      logFile: 'x.jsonl',
    });
    expect(serveOptions(base, new Date('2026-01-02T03:04:05Z')).logFile).toMatch(
      /results\/serve-2026-01-02T03-04-05\.jsonl$/,
    );
  });
  it.each([
    ['port', '70000', /--port: 70000 is above the maximum 65535/],
    ['latency', '-1', /--latency: -1 is below the minimum 0/],
    ['errorRate', '1.5', /--error-rate: 1.5 is above the maximum 1/],
    [
      'faults',
      '500,lag',
      /--faults: unknown fault 'lag' \(accepted: 429, 500, reset, timeout, empty, no-usage, bad-args, overlong\)/,
    ],
    ['retryAfter', 'soon', /--retry-after: 'soon' is not a number/],
    ['profile', 'nope', /unknown simulated profile 'nope'/],
    ['promptCache', 'maybe', /--prompt-cache: 'maybe' is not accepted/],
    ['host', ' ', /--host: empty/],
  ])('--%s %s', (key, value, message) => {
    expect(() => serveOptions({ ...base, [key]: value })).toThrow(UsageError);
    expect(() => serveOptions({ ...base, [key]: value })).toThrow(message);
  });

  it('bench serve starts, answers, and stops on SIGTERM', async () => {
    const s = await spawnServe(['--profile', 'tiny-agent']);
    try {
      const res = await fetch(`${s.url}/models`);
      expect(((await res.json()) as { data: Array<{ id: string }> }).data.map((m) => m.id)).toEqual(['tiny-agent']);
    } finally {
      await s.close();
    }
  });

  it('a port in use is a one-line error, exit 2', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const r = await benchAsync(['serve', '--port', String(port), '--log', path.join(tmp, 'x.jsonl')], {});
      expect(r.code).toBe(2);
      expect(r.stderr.trim()).toMatch(new RegExp(`^bench: cannot listen on 127.0.0.1:${port} \\(EADDRINUSE\\)$`));
    } finally {
      blocker.close();
    }
  });
});
