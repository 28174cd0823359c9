// Codex CLI takes its provider from $CODEX_HOME/config.toml and ignores OPENAI_BASE_URL unless that
// config names a provider, so under `bench run --agent-cmd` it would call whatever provider the
// user's config names. Each run gets a private CODEX_HOME instead: the user's config.toml copied
// (their settings stand) with the top-level `model_provider` set to a provider that is the run's
// gateway. The user's own files are only read; the private copy (and the sessions Codex writes into
// it) is removed when the run ends.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeFileAtomic } from '../results/atomic.ts';

export const CODEX_PROVIDER = 'loopbench';
/** A config.toml larger than this is not a config: the run gets ours alone. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/** The user's config.toml, or '' when there is none to read. */
function userConfig(env: NodeJS.ProcessEnv): string {
  const home = env.CODEX_HOME || path.join(env.HOME || os.homedir(), '.codex');
  const file = path.join(home, 'config.toml');
  try {
    const st = fs.statSync(file);
    return st.isFile() && st.size <= MAX_CONFIG_BYTES ? fs.readFileSync(file, 'utf8') : '';
  } catch {
    return '';
  }
}

/**
 * `config` with its top-level `model_provider` naming the gateway, and the gateway as that provider
 * (the Responses API; over its WebSocket when the gateway will accept one, socket-offer.ts).
 */
export function withGatewayProvider(config: string, gatewayUrl: string, websocket: boolean): string {
  const lines = config.split('\n');
  // Top-level keys come before the first table header; the user's own `model_provider` there gives way to ours.
  const firstTable = lines.findIndex((l) => /^\s*\[/.test(l));
  const top = firstTable === -1 ? lines.length : firstTable;
  const kept = lines.filter((l, i) => i >= top || !/^\s*model_provider\s*=/.test(l));
  return [
    `model_provider = "${CODEX_PROVIDER}"`,
    ...kept,
    '',
    `[model_providers.${CODEX_PROVIDER}]`,
    `name = "${CODEX_PROVIDER}"`,
    `base_url = ${JSON.stringify(gatewayUrl)}`,
    'env_key = "OPENAI_API_KEY"',
    'wire_api = "responses"',
    // The Responses API's WebSocket mode, as Codex uses it on OpenAI's own provider (the gateway relays it).
    ...(websocket ? ['supports_websockets = true'] : []),
    // Codex retries a refused call (a brake's 403) five times over: once is the gateway's answer.
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
  ].join('\n');
}

/** A private CODEX_HOME for one run, pointed at the gateway; `dispose` removes it. */
export function privateCodexHome(
  gatewayUrl: string,
  env: NodeJS.ProcessEnv,
  websocket: boolean,
): { dir: string; dispose(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-codex-home-'));
  writeFileAtomic(path.join(dir, 'config.toml'), withGatewayProvider(userConfig(env), gatewayUrl, websocket));
  return { dir, dispose: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
