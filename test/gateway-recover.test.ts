// The standalone gateway records a run when it goes quiet and forgets it (memory bounded by open runs);
// a gateway killed with SIGKILL loses no run: `bench report` rebuilds the records from steps.jsonl.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayOptions } from '../src/cli/serve.ts';
import type { RunRecord } from '../src/contracts/records.ts';
import { RUN_HEADER } from '../src/gateway/gateway.ts';
import { startStandaloneGateway } from '../src/gateway/standalone.ts';
import { bench, spawnBench } from './helpers/cli.ts';
import { readCsv } from './helpers/csv.ts';
import { completionWith, postRaw, sendJson, stubUpstream, type StubUpstream } from './helpers/stub-upstream.ts';
import { SERVE_FLAGS } from './helpers/serve-flags.ts';
import { patient } from './helpers/patient.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-gw-recover-'));
const KEY = 'sk-stub-recover-0123456789';
let upstream: StubUpstream;
/** Each call writes 300 tokens to the prompt cache and reads the previous call's. */
beforeAll(async () => {
  upstream = await stubUpstream((_req, res, body) => {
    const prompt = Math.ceil(body.length / 4) + 400;
    sendJson(
      res,
      completionWith({
        prompt_tokens: prompt,
        completion_tokens: 30,
        prompt_tokens_details: { cached_tokens: 100, cache_write_tokens: 300 },
      }),
    );
  });
});
afterAll(async () => {
  await upstream.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const BODY = JSON.stringify({
  model: 'agent-stub',
  max_tokens: 200,
  messages: [
    { role: 'system', content: 'You are an agent.' },
    { role: 'user', content: 'Collect sources on agent loop costs.' },
  ],
});
const lines = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);

/** Waits for a condition (a machine under load is slow, not wrong). */
async function until(ok: () => boolean, ms = 20_000): Promise<void> {
  for (const end = Date.now() + ms; !ok() && Date.now() < end;) await new Promise((r) => setTimeout(r, 20));
}

describe('a run that goes quiet', () => {
  it('is appended to runs.jsonl and forgotten; its id is refused afterwards, other runs go on', async () => {
    const dir = path.join(tmp, 'quiet');
    const flags = {
      ...SERVE_FLAGS,
      upstream: upstream.url,
      out: dir,
      runIdle: '0.2',
      // The stub model is in no pricing table: a provider's model must be priced.
      priceModel: 'gpt-4o-mini',
    };
    const recorded: RunRecord[] = [];
    let heard: (r: RunRecord) => void = () => {};
    const gw = await startStandaloneGateway({
      ...gatewayOptions(flags, { OPENAI_API_KEY: KEY })!,
      onRecorded: (r) => (recorded.push(r), heard(r)),
    });
    try {
      const quiet = new Promise<RunRecord>((resolve) => (heard = resolve));
      for (let i = 0; i < 2; i++) expect((await postRaw(gw.url, BODY, { [RUN_HEADER]: 'pauses' })).status).toBe(200);
      expect(gw.openRuns).toBe(1);
      const record = await quiet;
      expect(record).toMatchObject({ run_id: 'pauses', calls: 2, cache_write_tokens: 600, stop_reason: 'done' });
      expect(record.stop_detail).toMatch(/went quiet \(no call for 0\.2 s\)/);
      // On disk at once, after its steps, and the run held no longer.
      expect(lines(path.join(dir, 'runs.jsonl')).map((l) => JSON.parse(l).run_id)).toEqual(['pauses']);
      expect(lines(path.join(dir, 'steps.jsonl'))).toHaveLength(2);
      expect(gw.openRuns).toBe(0);
      const again = await postRaw(gw.url, BODY, { [RUN_HEADER]: 'pauses' });
      expect(again.status).toBe(409);
      expect(again.json.error).toMatchObject({ code: 'loopbench_run_closed' });
      expect(again.json.error!.message).toMatch(/send a new run id/);
      expect((await postRaw(gw.url, BODY, { [RUN_HEADER]: 'next' })).status).toBe(200);
    } finally {
      await gw.close();
    }
    // The open run is recorded at close; the closed one is not written twice.
    expect(lines(path.join(dir, 'runs.jsonl')).map((l) => JSON.parse(l).run_id)).toEqual(['pauses', 'next']);
    expect(recorded.map((r) => r.run_id)).toEqual(['pauses', 'next']);
    expect(fs.existsSync(path.join(dir, 'gateway.pid'))).toBe(false);
  });
});

describe('a gateway killed with SIGKILL', () => {
  it(
    'bench report rebuilds the run it never recorded from steps.jsonl, with its three calls and cache-write total, and says so',
    async () => {
      const dir = path.join(tmp, 'killed');
      const s = spawnBench(
        ['serve', '--upstream', upstream.url, '--out', dir, '--port', '0', '--price-model', 'gpt-4o-mini'],
        {
          PATH: process.env.PATH,
          OPENAI_API_KEY: KEY,
        },
      );
      await until(() => /http:\/\/127\.0\.0\.1:\d+\/v1/.test(s.stdout()));
      const url = /(http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(s.stdout())![1]!;
      for (let i = 0; i < 3; i++)
        expect((await postRaw(url, BODY, { [RUN_HEADER]: 'claude-code-7' })).status).toBe(200);
      // Steps reach the file within a moment of their call (STEP_FLUSH_MS): wait for them, then kill.
      await until(() => lines(path.join(dir, 'steps.jsonl')).length === 3);
      expect(lines(path.join(dir, 'steps.jsonl'))).toHaveLength(3);
      s.child.kill('SIGKILL');
      expect((await s.done).signal).toBe('SIGKILL');
      expect(lines(path.join(dir, 'runs.jsonl'))).toEqual([]);
      expect(fs.existsSync(path.join(dir, 'gateway.pid'))).toBe(true);

      const report = await bench(['report', dir]);
      expect(report.code).toBe(0);
      expect(report.stderr).toMatch(
        /^bench: rebuilt 1 run record\(s\) from steps\.jsonl \(the gateway, pid \d+, was killed before it recorded them; each is marked interrupted\)/m,
      );
      const [run] = lines(path.join(dir, 'runs.jsonl')).map((l) => JSON.parse(l) as RunRecord);
      expect(run).toMatchObject({
        run_id: 'claude-code-7',
        agent: 'external',
        calls: 3,
        steps: 3,
        cached_tokens: 300,
        cache_write_tokens: 900,
        stop_reason: 'interrupted',
      });
      const row = readCsv(path.join(dir, 'runs.csv')).find((r) => r.run_id === 'claude-code-7');
      expect(row).toMatchObject({
        calls: '3',
        cache_write_tokens: '900',
        cached_tokens: '300',
        stop_reason: 'interrupted',
      });
      // Rebuilt once: a second report finds nothing to rebuild and the record is not doubled.
      const second = await bench(['report', dir]);
      expect(second.stderr).not.toMatch(/rebuilt/);
      expect(lines(path.join(dir, 'runs.jsonl'))).toHaveLength(1);
    },
    patient(60_000),
  );
});
