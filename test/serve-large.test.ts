// One very large request must not freeze `bench serve` for the other clients: its tokens are
// counted off the main thread, and counted exactly as in-process metering counts them.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { servedUrl, spawnBench } from './helpers/cli.ts';
import { countText } from '../src/meter/tokens.ts';
import { OffThreadCounter } from '../src/serve/offthread-count.ts';
import type { RunningServer } from '../src/serve/server.ts';
import { serve } from './serve-helpers.ts';
import { patient } from './helpers/patient.ts';

let server: RunningServer | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
});

const body = (content: string) => JSON.stringify({ model: 'tiny-agent', messages: [{ role: 'user', content }] });
const ask = (url: string, content: string) =>
  fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: body(content),
  });

/** Text that tokenizes like prose, `bytes` long. */
const prose = (bytes: number) =>
  Array.from({ length: Math.ceil(bytes / 7) }, (_, i) => `word${i % 997}`)
    .join(' ')
    .slice(0, bytes);

describe('bench serve under a large request', { timeout: patient(180_000) }, () => {
  it('answers a small request while a 15 MB one is still being counted', async () => {
    server = await serve();
    // The small request is sent the moment the server hands the large one to its counting (which takes
    // over half a second even on an idle machine), not after a guessed delay.
    const precount = OffThreadCounter.prototype.precount;
    const counting = new Promise<void>((began) => {
      vi.spyOn(OffThreadCounter.prototype, 'precount').mockImplementation(function (this: OffThreadCounter, ...args) {
        const counted = precount.apply(this, args);
        began();
        return counted;
      });
    });
    const order: string[] = [];
    const large = ask(server.url, prose(15 * 1024 * 1024)).then(async (r) => {
      order.push('large');
      return r.json();
    });
    await counting;
    const small = await ask(server.url, 'hello');
    order.push('small');
    expect(small.status).toBe(200);
    const big = (await large) as { usage: { prompt_tokens: number } };
    expect(order).toEqual(['small', 'large']);
    expect(big.usage.prompt_tokens).toBeGreaterThan(1_000_000);
  });

  it('bills a large message exactly as in-process metering does', async () => {
    server = await serve();
    const content = prose(300 * 1024);
    const r = (await (await ask(server.url, content)).json()) as { usage: { prompt_tokens: number } };
    // 3 per message + the role + the content, and 3 to prime the reply.
    expect(r.usage.prompt_tokens).toBe(3 + countText('user') + countText(content) + 3);
  });
});

describe('bench serve and Ctrl-C', { timeout: patient(120_000) }, () => {
  it('SIGINT while a large request is being counted: the server stops, exit 130, the usage log is whole lines', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-serve-sig-'));
    try {
      const log = path.join(dir, 'usage.jsonl');
      const run = spawnBench(['serve', '-p', '0', '--log', log]);
      const url = await servedUrl(run);
      expect((await ask(url, 'hello')).status).toBe(200);
      // Ctrl-C once the whole large body has left this process, not after a guessed delay.
      await new Promise<void>((sent) => {
        const req = http.request(`${url}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
        });
        req.on('error', () => undefined); // the server stops before it answers
        req.end(body(prose(15 * 1024 * 1024)), sent);
      });
      run.child.kill('SIGINT');
      const end = await run.done;
      expect(end.code).toBe(130);
      const lines = fs.readFileSync(log, 'utf8').split('\n').filter(Boolean);
      expect(lines.length).toBeGreaterThanOrEqual(1);
      for (const l of lines) JSON.parse(l);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
