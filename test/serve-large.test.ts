// One very large request must not freeze `bench serve` for the other clients: its tokens are
// counted off the main thread, and counted exactly as in-process metering counts them.
import { afterEach, describe, expect, it } from 'vitest';
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
    await new Promise((r) => setTimeout(r, 1500));
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
