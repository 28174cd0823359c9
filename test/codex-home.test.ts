// Codex CLI under `bench run --agent-cmd`: each run's private CODEX_HOME names the gateway as its
// provider over whatever the user's config.toml says, and leaves the rest of that config as it was.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { privateCodexHome, withGatewayProvider } from '../src/gateway/codex-home.ts';

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
    const config = withGatewayProvider(USER, 'http://127.0.0.1:4321/v1');
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
    expect(withGatewayProvider('', 'http://127.0.0.1:1/v1').startsWith('model_provider = "loopbench"\n')).toBe(true);
  });

  it("reads the user's config from CODEX_HOME without changing it, and removes the run's copy when disposed", () => {
    const user = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-codex-user-'));
    fs.writeFileSync(path.join(user, 'config.toml'), USER);
    const home = privateCodexHome('http://127.0.0.1:4321/v1', { CODEX_HOME: user });
    try {
      expect(fs.readFileSync(path.join(home.dir, 'config.toml'), 'utf8')).toBe(
        withGatewayProvider(USER, 'http://127.0.0.1:4321/v1'),
      );
      expect(fs.readFileSync(path.join(user, 'config.toml'), 'utf8')).toBe(USER);
    } finally {
      home.dispose();
      fs.rmSync(user, { recursive: true, force: true });
    }
    expect(fs.existsSync(home.dir)).toBe(false);
  });
});
