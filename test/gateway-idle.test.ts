// The standalone gateway's quiet time (--run-idle) never closes a run while one of its calls is in flight:
// neither while the upstream is answering nor while the agent is still sending the request. Each call is
// counted in its run's one record. The upstream is scripted here: it answers when the test says.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayOptions } from '../src/cli/serve.ts';
import type { RunRecord } from '../src/contracts/records.ts';
import { RUN_HEADER, RUNS_ROUTE } from '../src/gateway/gateway.ts';
import { startStandaloneGateway, type RunningGateway } from '../src/gateway/standalone.ts';
import { buildReports } from '../src/report/build.ts';
import { loadRuns } from '../src/report/data/load-runs.ts';
import { readCsv } from './helpers/csv.ts';
import { completionWith, postRaw, sendJson, stubUpstream, type StubUpstream } from './helpers/stub-upstream.ts';
import { SERVE_FLAGS } from './helpers/serve-flags.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-gw-idle-'));
const KEY = 'sk-stub-idle-0123456789';
const BODY = JSON.stringify({
  model: 'agent-stub',
  max_tokens: 200,
  messages: [{ role: 'user', content: 'Collect sources on agent loop costs.' }],
});
const USAGE = { prompt_tokens: 500, completion_tokens: 30 };

/** Requests the upstream holds until the test answers them, and a wait for the next one to arrive. */
const held: http.ServerResponse[] = [];
let arrived: () => void = () => {};
const nextArrival = () => new Promise<void>((resolve) => (arrived = resolve));
const answerHeld = () => sendJson(held.shift()!, completionWith(USAGE));

let upstream: StubUpstream;
let gw: RunningGateway;
const recorded: RunRecord[] = [];
const waiting = new Map<string, (r: RunRecord) => void>();
/** Resolves when the run's record is appended to runs.jsonl. */
const recordOf = (id: string) => new Promise<RunRecord>((resolve) => waiting.set(id, resolve));

beforeAll(async () => {
  upstream = await stubUpstream((_req, res) => {
    held.push(res);
    arrived();
  });
  const flags = {
    ...SERVE_FLAGS,
    upstream: upstream.url,
    out: path.join(tmp, 'out'),
    runIdle: '0.1',
    // The stub model is in no pricing table: a provider's model must be priced.
    priceModel: 'gpt-4o-mini',
  };
  gw = await startStandaloneGateway({
    ...gatewayOptions(flags, { OPENAI_API_KEY: KEY })!,
    onRecorded: (r) => {
      recorded.push(r);
      waiting.get(r.run_id)?.(r);
    },
  });
});
afterAll(async () => {
  await gw?.close();
  await upstream?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/**
 * Opens a run now and waits for it to go quiet: its quiet time started after every run's still pending
 * (the same --run-idle), so by then theirs have run out too, in the order they were set.
 */
async function aQuietTimeLater(id: string): Promise<void> {
  const record = recordOf(id);
  const res = await fetch(new URL(RUNS_ROUTE, gw.url), { method: 'POST', body: JSON.stringify({ run_id: id }) });
  expect(res.status).toBe(201);
  await record;
}

const runsOnDisk = () =>
  fs
    .readFileSync(path.join(tmp, 'out', 'runs.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as RunRecord);

describe('--run-idle with a call in flight', () => {
  it('does not close a run while the upstream is answering its call; the call is counted in that run', async () => {
    const arrival = nextArrival();
    const call = postRaw(gw.url, BODY, { [RUN_HEADER]: 'slow' });
    await arrival;
    await aQuietTimeLater('witness-1');
    // A quiet time has passed with the call held: the witness's record is on disk, the held run's is not.
    expect(recorded.map((r) => r.run_id)).not.toContain('slow');
    expect(runsOnDisk().map((r) => r.run_id)).toContain('witness-1');
    expect(runsOnDisk().map((r) => r.run_id)).not.toContain('slow');
    const record = recordOf('slow');
    answerHeld();
    expect((await call).status).toBe(200);
    // Appended once the run went quiet after the answer, with the call it held.
    expect(await record).toMatchObject({ run_id: 'slow', calls: 1, input_tokens: 500, stop_reason: 'done' });
    expect((await record).stop_detail).toContain('recorded when it went quiet');
    expect(runsOnDisk().filter((r) => r.run_id === 'slow')).toHaveLength(1);
  });

  it('does not close a run while the agent is still sending a call; the call is counted in that run', async () => {
    let answered: (status: number) => void = () => {};
    const status = new Promise<number>((resolve) => (answered = resolve));
    const req = http.request(`${gw.url}/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(BODY),
        [RUN_HEADER]: 'trickle',
      },
    });
    req.on('response', (res) => {
      res.resume();
      answered(res.statusCode ?? 0);
    });
    req.flushHeaders();
    req.write(BODY.slice(0, 10));
    // The gateway has the request (its run is open) but not yet the whole body.
    while (gw.openRuns === 0) await new Promise((r) => setTimeout(r, 10));
    await aQuietTimeLater('witness-2');
    expect(recorded.map((r) => r.run_id)).not.toContain('trickle');
    const record = recordOf('trickle');
    const arrival = nextArrival();
    req.end(BODY.slice(10));
    await arrival;
    answerHeld();
    expect(await status).toBe(200);
    expect(await record).toMatchObject({ run_id: 'trickle', calls: 1, input_tokens: 500 });
    expect(runsOnDisk().filter((r) => r.run_id === 'trickle')).toHaveLength(1);
  });
});

describe('closed runs remembered', () => {
  it('the last N closed ids are refused; a call naming one closed before them opens a new run, leaving the finished record as it was', async () => {
    const auto = await stubUpstream((_req, res) => sendJson(res, completionWith(USAGE)));
    const dir = path.join(tmp, 'kept');
    const flags = {
      ...SERVE_FLAGS,
      upstream: auto.url,
      out: dir,
      runIdle: '0.1',
      steps: '1',
      priceModel: 'gpt-4o-mini',
    };
    const quiet = new Map<string, (r: RunRecord) => void>();
    const closedRun = (id: string) => new Promise<RunRecord>((resolve) => quiet.set(id, resolve));
    const g = await startStandaloneGateway({
      ...gatewayOptions(flags, { OPENAI_API_KEY: KEY })!,
      closedRunsKept: 2,
      onRecorded: (r) => quiet.get(r.run_id)?.(r),
    });
    const post = (id: string) => postRaw(g.url, BODY, { [RUN_HEADER]: id });
    try {
      // Run a: its one step, then a call its step limit refuses (recorded as a call); it ends with that stop.
      const a = closedRun('a');
      expect((await post('a')).status).toBe(200);
      expect((await post('a')).status).toBe(403);
      const first = await a;
      expect(first).toMatchObject({ calls: 2, steps: 1, stop_reason: 'max_steps' });
      for (const id of ['b', 'c']) {
        const done = closedRun(id);
        expect((await post(id)).status).toBe(200);
        await done;
      }
      // b and c are the two kept: refused. a is forgotten: a call naming it opens a new run, with fresh brakes.
      for (const id of ['c', 'b']) expect((await post(id)).json.error).toMatchObject({ code: 'loopbench_run_closed' });
      const again = closedRun('a');
      expect((await post('a')).status).toBe(200);
      expect(await again).toMatchObject({ run_id: 'a', calls: 1, input_tokens: 500 });
    } finally {
      await g.close();
      await auto.close();
    }
    // The finished run's record is as it was; the new run's is another line of the same id, which reports count once.
    const loaded = await loadRuns(path.join(dir, 'runs.jsonl'));
    expect(loaded.runs.map((r) => r.run_id)).toEqual(['a', 'b', 'c']);
    expect(loaded.runs[0]).toMatchObject({ calls: 2, stop_reason: 'max_steps', line: 1 });
    expect(loaded.duplicates).toEqual([{ run_id: 'a', line: 4, first_line: 1 }]);
    await buildReports(dir);
    expect(readCsv(path.join(dir, 'runs.csv')).map((r) => [r.run_id, r.calls])).toEqual([
      ['a', '2'],
      ['b', '1'],
      ['c', '1'],
    ]);
    expect(readCsv(path.join(dir, 'steps.csv')).filter((r) => r.run_id === 'a')).toHaveLength(3);
  });
});
