// Codex CLI under `bench run --agent-cmd`: each run's private CODEX_HOME names the gateway as its
// provider over whatever the user's config.toml says, and leaves the rest of that config as it was;
// the provider has the Responses WebSocket only where the gateway will accept one (the upstream probed
// once per sweep).
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { privateCodexHome, withGatewayProvider } from '../src/gateway/codex-home.ts';
import { socketOffer } from '../src/gateway/socket-offer.ts';
import type { Upstream } from '../src/gateway/upstream.ts';
import { probeUpstreamSocket } from '../src/gateway/upstream-socket.ts';
import { serve } from './serve-helpers.ts';

const USER = [
  'model = "gpt-5.1-codex"',
  'model_provider = "mine"',
  '[model_providers.mine]',
  'base_url = "https://example.invalid/v1"',
  '[profiles.fast]',
  'model_provider = "mine"',
  '',
].join('\n');

describe("Codex's provider for a run", () => {
  it("replaces the user's top-level model_provider with the gateway, and keeps their tables as they were", () => {
    const config = withGatewayProvider(USER, 'http://127.0.0.1:4321/v1', true);
    const lines = config.split('\n');
    const firstTable = lines.findIndex((l) => l.startsWith('['));
    expect(lines.slice(0, firstTable).filter((l) => l.startsWith('model_provider'))).toEqual([
      'model_provider = "loopbench"',
    ]);
    expect(config).toContain('model = "gpt-5.1-codex"');
    expect(config).toContain('[model_providers.mine]\nbase_url = "https://example.invalid/v1"');
    expect(config).toContain('[profiles.fast]\nmodel_provider = "mine"');
    expect(config).toMatch(
      /\[model_providers\.loopbench\]\nname = "loopbench"\nbase_url = "http:\/\/127\.0\.0\.1:4321\/v1"\nenv_key = "OPENAI_API_KEY"\nwire_api = "responses"\nsupports_websockets = true\nrequest_max_retries = 0\nstream_max_retries = 0\n$/,
    );
    expect(withGatewayProvider('', 'http://127.0.0.1:1/v1', true).startsWith('model_provider = "loopbench"\n')).toBe(
      true,
    );
    // Without the WebSocket the provider says nothing of it: Codex's default, POST.
    expect(withGatewayProvider(USER, 'http://127.0.0.1:4321/v1', false)).toBe(
      config.replace('supports_websockets = true\n', ''),
    );
  });

  it("reads the user's config from CODEX_HOME without changing it, and removes the run's copy when disposed", () => {
    const user = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-codex-user-'));
    fs.writeFileSync(path.join(user, 'config.toml'), USER);
    const home = privateCodexHome('http://127.0.0.1:4321/v1', { CODEX_HOME: user }, true);
    try {
      expect(fs.readFileSync(path.join(home.dir, 'config.toml'), 'utf8')).toBe(
        withGatewayProvider(USER, 'http://127.0.0.1:4321/v1', true),
      );
      expect(fs.readFileSync(path.join(user, 'config.toml'), 'utf8')).toBe(USER);
    } finally {
      home.dispose();
      fs.rmSync(user, { recursive: true, force: true });
    }
    expect(fs.existsSync(home.dir)).toBe(false);
  });
});

const KEY = 'sk-probe-SECRET-9a8b7c';

/** A server on 127.0.0.1 that answers every request with `status`, keeping each request's method and headers. */
async function plain(status: number) {
  const seen: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(status).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    seen,
    close: () => new Promise((r) => server.close(r)),
  };
}

const openai = (url: string): Upstream => ({ url, apiKey: KEY, timeoutMs: 10_000, speaks: 'openai' });

describe("whether a run's Codex is offered the Responses WebSocket", () => {
  it('the simulated model always, another protocol never, an OpenAI upstream as its one probe per sweep answered', async () => {
    const probes: string[] = [];
    const offer = socketOffer((up) => (probes.push(up.url), Promise.resolve(up.url.includes('ws'))));
    expect(await offer({ url: 'http://127.0.0.1:1/v1', timeoutMs: 1 })).toBe(true);
    expect(await offer({ url: 'http://replay.invalid/v1', timeoutMs: 1 })).toBe(true);
    expect(await offer({ url: 'http://a/v1', timeoutMs: 1, speaks: 'anthropic' })).toBe(false);
    expect(await Promise.all([offer(openai('http://ws/v1')), offer(openai('http://ws/v1'))])).toEqual([true, true]);
    expect(await offer(openai('http://plain/v1'))).toBe(false);
    expect(await offer(openai('http://plain/v1'))).toBe(false);
    expect(probes).toEqual(['http://ws/v1', 'http://plain/v1']);
    // Each sweep asks anew.
    expect(await socketOffer(() => Promise.resolve(false))(openai('http://ws/v1'))).toBe(false);
  });

  it('the probe: yes from bench serve; no from an upstream that refuses the upgrade, from a closed port, from one that never answers', async () => {
    const sim = await serve();
    const refusing = await plain(404);
    const silent = http.createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      expect(await probeUpstreamSocket(openai(sim.url))).toBe(true);
      expect(await probeUpstreamSocket(openai(refusing.url))).toBe(false);
      // One upgrade, with the run's key (the upstream's answer is the key's) and Codex's beta opt-in.
      expect(refusing.seen.map((h) => [h.upgrade, h.authorization, h['openai-beta']])).toEqual([
        ['websocket', `Bearer ${KEY}`, 'responses_websockets=2026-02-06'],
      ]);
      await refusing.close();
      expect(await probeUpstreamSocket(openai(refusing.url))).toBe(false);
      const port = (silent.address() as AddressInfo).port;
      expect(await probeUpstreamSocket(openai(`http://127.0.0.1:${port}/v1`), 200)).toBe(false);
    } finally {
      silent.closeAllConnections();
      await new Promise((r) => silent.close(r));
      await sim.close();
    }
  });
});
