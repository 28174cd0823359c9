// One very large request must not freeze `bench serve` for the other clients: its tokens are
// counted off the main thread, and counted exactly as in-process metering counts them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnBench } from './helpers/cli.ts';
import { countText } from '../src/meter/tokens.ts';
import type { RunningServer } from '../src/serve/server.ts';
import { serve } from './serve-helpers.ts';

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const ask = (url: string, content: string) =>
  fetch(`${url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'tiny-agent', messages: [{ role: 'user', content }] }) });

/** Text that tokenizes like prose, `bytes` long. */
const prose = (bytes: number) => Array.from({ length: Math.ceil(bytes / 7) }, (_, i) => `word${i % 997}`).join(' ').slice(0, bytes);

describe('bench serve under a large request', { timeout: 180_000 }, () => {
  it('answers a small request while a 15 MB one is still being counted', async () => {
    server = await serve();
    const order: string[] = [];
    const large = ask(server.url, prose(15 * 1024 * 1024)).then(async (r) => {
      order.push('large');
      return r.json();
    });
    // Give the server time to receive and parse the large body, so its counting has begun.
    // Sent while the large one is being counted (counting 15 MB takes over half a second even on an idle
    // machine); waiting longer would let a fast machine finish the large one first and prove nothing.
    await new Promise((r) => setTimeout(r, 300));
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

describe('bench serve and Ctrl-C', { timeout: 120_000 }, () => {
  it('SIGINT while a large request is being counted: the server stops, exit 130, the usage log is whole lines', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-serve-sig-'));
    try {
      const log = path.join(dir, 'usage.jsonl');
      const run = spawnBench(['serve', '-p', '0', '--log', log]);
      await expect.poll(() => /http:\/\/\S+\/v1/.test(run.stdout()), { timeout: 60_000 }).toBe(true);
      const url = /(http:\/\/\S+\/v1)/.exec(run.stdout())![1]!;
      expect((await ask(url, 'hello')).status).toBe(200);
      void ask(url, prose(15 * 1024 * 1024)).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 1000));
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
