// The real Claude Code and Codex CLI (test-clients/) on `bench serve --profile tiny-agent`, on their
// default settings: the sim takes the requests they send, drives their own shell tool with a command
// their shell runs, and each finishes with 338350 — printed by its own shell, said in its answer.
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningServer } from '../src/serve/server.ts';
import fs from 'node:fs';
import path from 'node:path';
import type { RunRecord, StepRecord } from '../src/contracts/records.ts';
import {
  CLAUDE_ARGS,
  CLAUDE_BIN,
  claudeEnv,
  clientHome,
  CODEX_ARGS,
  CODEX_BIN,
  codexEnv,
  codexHome,
  CODEX_WS_FALLBACK,
  runClaude,
  runCodexBuiltIn,
  USER_CODEX_CONFIG,
} from './helpers/coding-clients.ts';
import { systemTool } from './helpers/system-tools.ts';
import type { UsageLine } from '../src/serve/server.ts';
import { benchAsync, serve } from './serve-helpers.ts';

let server: RunningServer | undefined;
const told: Array<[string, string[]]> = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  told.length = 0;
});

const TASK = 'compute the sum of squares 1..100 and verify it';
/** The server's base URL without /v1: what ANTHROPIC_BASE_URL takes (the helpers add /v1 for Codex). */
const base = (s: RunningServer) => s.url.replace(/\/v1$/, '');

describe('the coding-agent CLIs on bench serve, their defaults unchanged', () => {
  it.skipIf(!systemTool('claude-code', 'Claude Code on bench serve'))(
    'Claude Code runs tiny-agent through its Bash tool and answers 338350',
    async () => {
      server = await serve({ profile: 'tiny-agent', onToolMapping: (p, notes) => told.push([p, notes]) });
      const r = await runClaude(base(server), TASK);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as { is_error: boolean; result: string; num_turns: number };
      expect(out.is_error).toBe(false);
      expect(out.result).toContain('338350');
      expect(out.num_turns).toBeGreaterThanOrEqual(3);
      expect(told.flatMap(([, n]) => n)).toContain(
        "run_python is not among your tools: played on your Bash as a shell command (python3 -c '<code>')",
      );
    },
  );

  it.skipIf(!systemTool('codex', 'Codex CLI on bench serve'))(
    'Codex CLI on its built-in provider runs tiny-agent over the Responses WebSocket, through its exec_command tool, and answers 338350',
    async () => {
      const where = clientHome('codex-ws');
      const log = path.join(where.home, 'usage.jsonl');
      server = await serve({ profile: 'tiny-agent', logFile: log, onToolMapping: (p, notes) => told.push([p, notes]) });
      const r = await runCodexBuiltIn(base(server), TASK, where);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(CODEX_WS_FALLBACK);
      // Its first request is the WebSocket's warm-up (generate: false): answered with no output.
      const calls = jsonl<UsageLine>(log);
      expect(calls[0]).toMatchObject({ api: 'responses', status: 200, completion_tokens: 0 });
      expect(calls.slice(1).every((c) => c.status === 200 && c.completion_tokens > 0)).toBe(true);
      // Its own shell printed it (the exec log on stderr), and its answer says it.
      expect(r.stderr).toMatch(/succeeded in \d+ms:\n338350/);
      expect(r.stdout).toContain('338350');
      expect(told.flatMap(([, n]) => n)).toContain(
        "run_python is not among your tools: played on your exec_command as a shell command (python3 -c '<code>')",
      );
    },
  );

  it.skipIf(!systemTool('claude-code', 'Claude Code under bench run --agent-cmd'))(
    'bench run --agent-cmd "claude -p …": every call metered through the gateway, and --steps 2 stops it at its second call',
    async () => {
      const where = clientHome('agent-cmd');
      await meteredUnderAgentCmd([CLAUDE_BIN, ...CLAUDE_ARGS(TASK)], where.home, claudeEnv(where.home));
    },
    300_000,
  );

  it.skipIf(!systemTool('codex', 'Codex CLI under bench run --agent-cmd'))(
    'bench run --agent-cmd "codex exec …": the run arranges its provider (the user\'s own config names another, left as it was), every call metered over the Responses WebSocket, --steps 2 stops it (refused on the socket, and again on the POST Codex falls back to)',
    async () => {
      const where = clientHome('codex-agent-cmd');
      const stderr = (steps: string) => path.join(where.home, `codex-stderr-${steps}.txt`);
      // Codex takes the brake's error frame for a failed WebSocket: it falls back to POST and sends the call once more, refused too.
      const calls = await meteredUnderAgentCmd(
        [CODEX_BIN, ...CODEX_ARGS(TASK)],
        where.home,
        codexEnv(where.home),
        (steps) => ` 2>'${stderr(steps)}'`,
        2,
      );
      expect(fs.readFileSync(path.join(codexHome(where.home), 'config.toml'), 'utf8')).toBe(USER_CODEX_CONFIG);
      // Over the Responses WebSocket, which the gateway relays: no fallback, and its first call the warm-up (no output).
      expect(fs.readFileSync(stderr('12'), 'utf8')).not.toMatch(CODEX_WS_FALLBACK);
      expect(fs.readFileSync(stderr('2'), 'utf8')).toMatch(CODEX_WS_FALLBACK);
      expect(calls.map((c) => c.output_tokens === 0)).toEqual([true, ...calls.slice(1).map(() => false)]);
    },
    300_000,
  );
});

const jsonl = <T>(f: string) =>
  fs
    .readFileSync(f, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as T);

/**
 * `bench run --agent-cmd` with the CLI's command line (each argument single-quoted, then `shellSuffix`): at --steps 12
 * it is done with every call metered (returned); at --steps 2 it takes two steps and its next calls (`refusedCalls`)
 * are refused, recorded with the brake's error.
 */
async function meteredUnderAgentCmd(
  argv: string[],
  home: string,
  env: NodeJS.ProcessEnv,
  shellSuffix: (steps: string) => string = () => '',
  refusedCalls = 1,
): Promise<StepRecord[]> {
  const line = argv.map((a, i) => (i === 0 ? a : `'${a.replace(/'/g, "'\\''")}'`)).join(' ');
  let done: StepRecord[] = [];
  for (const [steps, stop] of [
    ['12', 'done'],
    ['2', 'max_steps'],
  ] as const) {
    const out = path.join(home, `out-${steps}`);
    const r = await benchAsync(
      [
        'run',
        '--agent-cmd',
        line + shellSuffix(steps),
        '-s',
        'tiny-agent-sum-of-squares',
        '--steps',
        steps,
        '--repeat',
        '1',
        '--out',
        out,
      ],
      { ...env },
    );
    expect(r.code, r.stderr).toBe(0);
    const [run] = jsonl<RunRecord>(path.join(out, 'runs.jsonl'));
    const calls = jsonl<StepRecord>(path.join(out, 'steps.jsonl'));
    expect(run!.stop_reason, run!.stop_detail).toBe(stop);
    if (stop === 'done') {
      done = calls;
      expect(run!.success).toBe(true);
      expect(calls.length).toBe(run!.calls);
      expect(calls.every((c) => c.input_tokens > 0 && c.error === null)).toBe(true);
    } else {
      expect(run!.steps).toBe(2);
      expect(calls.map((c) => c.error?.slice(0, 49) ?? null)).toEqual([
        null,
        null,
        ...Array<string>(refusedCalls).fill('refused by the gateway (HTTP 403 loopbench_max_st'),
      ]);
    }
  }
  return done;
}
