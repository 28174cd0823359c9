// The real Claude Code and Codex CLI (test-clients/) through `bench run --agent-cmd` against a
// scripted provider on 127.0.0.1 that streams as Anthropic and OpenAI stream (usage with cache reads,
// cache writes at both TTLs, reasoning): every call in steps.jsonl carries the usage the provider
// reported, call for call, and `--steps 2` stops each CLI with one refused call. The scripted provider
// has no Responses WebSocket, so Codex's config for the run offers none and Codex never tries one
// (bench serve as the upstream, which has it: the config offers it).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunRecord, StepRecord } from '../src/contracts/records.ts';
import {
  agentUpstream,
  gatewayRecorded,
  stepUsage,
  type AgentUpstream,
  type ScriptedUsage,
  type Turn,
} from './helpers/agent-upstream.ts';
import {
  CLAUDE_ARGS,
  CLAUDE_BIN,
  claudeEnv,
  clientHome,
  CODEX_ARGS,
  CODEX_BIN,
  CODEX_WS_FALLBACK,
  codexEnv,
  FAKE_KEY,
} from './helpers/coding-clients.ts';
import { systemTool } from './helpers/system-tools.ts';
import { benchAsync, serve } from './serve-helpers.ts';
import { agentSweep } from './support/agent-sweep.ts';

let upstream: AgentUpstream | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

const TASK = 'compute the sum of squares 1..100 and verify it';
const COMMAND = "python3 -c 'print(sum(i*i for i in range(1,101)))'";
/**
 * Distinct usage per call, sized like these CLIs' prompts (their system prompts and tools are many
 * thousand tokens): the gateway believes a provider's prompt count within 1/4–4× its own.
 */
const usage = (i: number): ScriptedUsage => ({
  input: 8000 + i,
  cacheRead: i === 0 ? 0 : 12_000 + 10 * i,
  cacheWrite5m: 4000 + i,
  cacheWrite1h: i % 2 ? 500 + i : 0,
  output: 40 + 2 * i,
  reasoning: 10 + i,
});
const script: Turn[] = [
  { kind: 'shell', command: COMMAND, usage: usage(0) },
  { kind: 'shell', command: COMMAND, usage: usage(1) },
  { kind: 'text', text: 'The sum of squares 1..100 is 338350.', usage: usage(2) },
];

const jsonl = <T>(f: string) =>
  fs
    .readFileSync(f, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as T);

const CLIENTS = [
  {
    name: 'Claude Code',
    tool: 'claude-code',
    available: () => systemTool('claude-code', 'Claude Code through the gateway'),
    family: 'anthropic' as const,
    cmd: () => [CLAUDE_BIN, ...CLAUDE_ARGS(TASK).map((a) => `'${a}'`)].join(' '),
    model: 'anthropic:claude-sonnet-4-5',
    env: (home: string, url: string) => ({ ...claudeEnv(home), ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: FAKE_KEY }),
  },
  {
    name: 'Codex CLI',
    tool: 'codex',
    available: () => systemTool('codex', 'Codex CLI through the gateway'),
    family: 'openai' as const,
    // The run's config kept at `keep` for the test to read (the run's CODEX_HOME is removed when it ends).
    cmd: (keep: string) =>
      [
        `cp "$CODEX_HOME/config.toml" '${keep}' &&`,
        CODEX_BIN,
        ...CODEX_ARGS(TASK).map((a) => `'${a.replace(/'/g, "'\\''")}'`),
      ].join(' '),
    model: 'openai:gpt-4o',
    env: (home: string, url: string) => ({ ...codexEnv(home), OPENAI_BASE_URL: `${url}/v1`, OPENAI_API_KEY: FAKE_KEY }),
  },
];

describe('the coding-agent CLIs through bench run --agent-cmd, against a scripted provider', () => {
  for (const c of CLIENTS)
    it.skipIf(!c.available())(
      `${c.name}: steps.jsonl holds the provider's usage call for call; --steps 2 stops it with one refused call`,
      async () => {
        const where = clientHome(`gateway-${c.tool}`);
        for (const [steps, stop] of [
          ['12', 'done'],
          ['2', 'max_steps'],
        ] as const) {
          upstream = await agentUpstream(script);
          const out = path.join(where.home, `out-${steps}`);
          const r = await benchAsync(
            [
              'run',
              '--agent-cmd',
              c.cmd(path.join(where.home, `codex-config-${steps}.toml`)),
              '-s',
              'tiny-agent-sum-of-squares',
              '--model',
              c.model,
              '--steps',
              steps,
              '--max-cost',
              'off',
              '--repeat',
              '1',
              '--out',
              out,
            ],
            c.env(where.home, upstream.url),
          );
          expect(r.code, r.stderr).toBe(0);
          const [run] = jsonl<RunRecord>(path.join(out, 'runs.jsonl'));
          const calls = jsonl<StepRecord>(path.join(out, 'steps.jsonl'));
          expect(run!.stop_reason, run!.stop_detail).toBe(stop);
          const answered = calls.filter((s) => s.error === null);
          expect(answered.map((s) => s.usage_source)).toEqual(answered.map(() => 'provider'));
          expect(answered.map(stepUsage)).toEqual(
            script
              .slice(0, answered.length)
              .map((t) => gatewayRecorded[c.family]((t as { usage: ScriptedUsage }).usage)),
          );
          if (stop === 'done') {
            expect(answered).toHaveLength(3);
            expect(calls).toHaveLength(3);
            expect(run!.success).toBe(true);
          } else {
            expect(upstream.answered()).toBe(2);
            expect(calls.map((s) => s.error?.slice(0, 49) ?? null)).toEqual([
              null,
              null,
              'refused by the gateway (HTTP 403 loopbench_max_st',
            ]);
          }
          if (c.tool === 'codex') {
            // The provider has no WebSocket: Codex's config offers none, and the provider's one upgrade is the probe's.
            expect(fs.readFileSync(path.join(where.home, `codex-config-${steps}.toml`), 'utf8')).not.toContain(
              'supports_websockets',
            );
            expect(upstream.requests.filter((q) => q.headers.upgrade === 'websocket')).toHaveLength(1);
            expect(r.stderr).not.toMatch(CODEX_WS_FALLBACK);
          }
          // The key reached the provider only.
          expect(upstream.requests.every((q) => JSON.stringify(q.headers).includes(FAKE_KEY))).toBe(true);
          expect(fs.readFileSync(path.join(out, 'steps.jsonl'), 'utf8')).not.toContain(FAKE_KEY);
          await upstream.close();
          upstream = undefined;
        }
      },
      300_000,
    );
});

describe("Codex's config under bench run --agent-cmd, by its upstream", () => {
  it('offers the Responses WebSocket with bench serve as the upstream, and none with a provider without one', async () => {
    const where = clientHome('gateway-codex-config');
    const keep = path.join(where.home, 'config.toml');
    const sim = await serve();
    const plain = await agentUpstream(script);
    try {
      const configFor = async (url: string) => {
        const { runs } = await agentSweep(
          {
            agentCmd: `cp "$CODEX_HOME/config.toml" '${keep}'`,
            scenario: 'tiny-agent-sum-of-squares',
            model: 'openai:gpt-4o',
            repeat: '1',
          },
          { OPENAI_API_KEY: FAKE_KEY, OPENAI_BASE_URL: url },
        );
        expect(runs.map((x) => x.stop_reason)).toEqual(['done']);
        return fs.readFileSync(keep, 'utf8');
      };
      expect(await configFor(sim.url)).toContain('\nsupports_websockets = true\n');
      expect(await configFor(`${plain.url}/v1`)).not.toContain('supports_websockets');
      // The probe: one upgrade with the run's key.
      expect(plain.requests.map((q) => [q.method, q.path, q.headers.upgrade, q.headers.authorization])).toEqual([
        ['GET', '/v1/responses', 'websocket', `Bearer ${FAKE_KEY}`],
      ]);
    } finally {
      await plain.close();
      await sim.close();
    }
  });
});
