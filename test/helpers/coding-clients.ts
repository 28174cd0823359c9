// The coding-agent CLIs (Claude Code, Codex CLI) as the tests run them: the exact versions pinned in
// test-clients/package.json, each in a private HOME / CODEX_HOME (so nothing of the machine's own
// configuration, credentials or session logs is read or written), telemetry, error reports and
// auto-updates off, and every connection that is not to 127.0.0.1 sent to a proxy that is not there
// (so a stray call fails at once instead of leaving the machine). Ask systemTool('claude-code' /
// 'codex', …) first: a machine without `npm ci --prefix test-clients` skips these tests.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const BIN = path.resolve(import.meta.dirname, '../../test-clients/node_modules/.bin');
export const CLAUDE_BIN = path.join(BIN, 'claude');
export const CODEX_BIN = path.join(BIN, 'codex');

/** A key that is not one: what the scripted upstream is sent (and what must never be a real key). */
export const FAKE_KEY = 'sk-loopbench-test-not-a-key';

export interface ClientRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The private home the client ran in (its session logs are under it). */
  home: string;
}

/** What every client gets: no variable of the test's own environment beyond PATH and locale. */
function baseEnv(home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    LANG: 'C.UTF-8',
    HOME: home,
    TMPDIR: os.tmpdir(),
    // Loopback only: everything else goes to a closed port on 127.0.0.1 and fails.
    HTTPS_PROXY: 'http://127.0.0.1:9',
    HTTP_PROXY: 'http://127.0.0.1:9',
    ALL_PROXY: 'http://127.0.0.1:9',
    NO_PROXY: '127.0.0.1,localhost',
  };
}

function run(bin: string, args: string[], env: NodeJS.ProcessEnv, cwd: string, home: string): Promise<ClientRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, home }));
  });
}

/** A fresh private home with a project folder to work in. */
export function clientHome(prefix: string): { home: string; project: string } {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), `loopbench-${prefix}-`));
  const project = path.join(home, 'project');
  fs.mkdirSync(project);
  return { home, project };
}

/** `claude -p PROMPT --output-format json` against an Anthropic-compatible base URL, its Bash tool allowed. */
export function runClaude(baseUrl: string, prompt: string, where = clientHome('claude')): Promise<ClientRun> {
  const env = { ...claudeEnv(where.home), ANTHROPIC_BASE_URL: baseUrl, ANTHROPIC_API_KEY: FAKE_KEY };
  return run(CLAUDE_BIN, CLAUDE_ARGS(prompt), env, where.project, where.home);
}

/** `claude -p PROMPT --output-format json`, its Bash tool allowed (print mode asks no one). */
export const CLAUDE_ARGS = (prompt: string) => ['-p', prompt, '--output-format', 'json', '--allowedTools', 'Bash'];

/** Claude Code's environment without its provider (`bench run --agent-cmd` adds the gateway's). */
export function claudeEnv(home: string): NodeJS.ProcessEnv {
  return {
    ...baseEnv(home),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_BUG_COMMAND: '1',
  };
}

/** Where Codex keeps its configuration and sessions inside a private home. */
export const codexHome = (home: string) => path.join(home, '.codex');

/**
 * `codex exec --skip-git-repo-check PROMPT` with a provider named in a private CODEX_HOME's config.toml
 * (Codex ignores OPENAI_BASE_URL unless its config names a provider), no retries (an API error ends
 * the session as it came), no sandbox (the container may forbid its namespaces; the commands are the
 * test's own).
 */
export function runCodex(baseUrl: string, prompt: string, where = clientHome('codex')): Promise<ClientRun> {
  const dir = codexHome(where.home);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'config.toml'),
    [
      'model = "gpt-4o"',
      'model_provider = "scripted"',
      'check_for_update_on_startup = false',
      '[analytics]',
      'enabled = false',
      '[feedback]',
      'enabled = false',
      '[model_providers.scripted]',
      'name = "scripted"',
      `base_url = "${baseUrl}/v1"`,
      'env_key = "SCRIPTED_API_KEY"',
      'wire_api = "responses"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '',
    ].join('\n'),
  );
  const env = { ...baseEnv(where.home), CODEX_HOME: dir, SCRIPTED_API_KEY: FAKE_KEY };
  return run(
    CODEX_BIN,
    ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', prompt],
    env,
    where.project,
    where.home,
  );
}

/**
 * `codex exec` on its built-in OpenAI provider with `openai_base_url` pointed at the server: the Responses
 * API over its WebSocket (Codex falls back to POST when the upgrade fails, and says so on stderr). The key
 * comes from CODEX_API_KEY (the built-in provider does not read OPENAI_API_KEY); its retries are Codex's own.
 */
export function runCodexBuiltIn(baseUrl: string, prompt: string, where = clientHome('codex-ws')): Promise<ClientRun> {
  const dir = codexHome(where.home);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'config.toml'),
    [
      'model = "gpt-4o"',
      `openai_base_url = "${baseUrl}/v1"`,
      'check_for_update_on_startup = false',
      '[analytics]',
      'enabled = false',
      '[feedback]',
      'enabled = false',
      '',
    ].join('\n'),
  );
  const env = { ...baseEnv(where.home), CODEX_HOME: dir, CODEX_API_KEY: FAKE_KEY };
  return run(CODEX_BIN, CODEX_ARGS(prompt), env, where.project, where.home);
}

/** What Codex says on stderr when the Responses WebSocket failed and it went on over HTTPS POST. */
export const CODEX_WS_FALLBACK = /Falling back from WebSockets/;

/** The user's own Codex config as `--agent-cmd` meets it: it names a provider of its own (a closed port), which the run must not reach. */
export const USER_CODEX_CONFIG = [
  'model = "gpt-5.1-codex"',
  'model_provider = "elsewhere"',
  'check_for_update_on_startup = false',
  '[analytics]',
  'enabled = false',
  '[feedback]',
  'enabled = false',
  '[model_providers.elsewhere]',
  'name = "elsewhere"',
  'base_url = "http://127.0.0.1:9/v1"',
  'env_key = "ELSEWHERE_API_KEY"',
  'wire_api = "responses"',
  '',
].join('\n');

/** Codex's environment without its provider (`bench run --agent-cmd` arranges the gateway's): a user CODEX_HOME holding USER_CODEX_CONFIG. */
export function codexEnv(home: string): NodeJS.ProcessEnv {
  const dir = codexHome(home);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'config.toml'), USER_CODEX_CONFIG);
  return { ...baseEnv(home), CODEX_HOME: dir };
}

/** `codex exec` as a user runs it under `--agent-cmd`: no approvals to ask in a test, no sandbox (the container may forbid its namespaces). */
export const CODEX_ARGS = (prompt: string) => [
  'exec',
  '--skip-git-repo-check',
  '--dangerously-bypass-approvals-and-sandbox',
  prompt,
];
