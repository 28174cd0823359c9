// `bench import --format claude-code | codex` on real session logs: the pinned Claude Code and Codex CLI
// (test-clients/) run against a scripted provider on 127.0.0.1 that streams as Anthropic / the
// Responses API stream, with scripted usage (cache reads, writes at both TTLs, reasoning) and scripted
// shell commands; their own logs are imported, and each session's calls and every token total must
// equal what the provider reported, priced from the LiteLLM map by the recorded model.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunRecord, StepRecord } from '../src/contracts/records.ts';
import { ANTHROPIC_MODEL, agentUpstream, usageFor, type ScriptedUsage, type Turn } from './helpers/agent-upstream.ts';
import { benchInProcess } from './helpers/cli.ts';
import { readCsv } from './helpers/csv.ts';
import { clientHome, codexHome, FAKE_KEY, runClaude, runCodex } from './helpers/coding-clients.ts';
import { systemTool } from './helpers/system-tools.ts';
import { patient } from './helpers/patient.ts';

const jsonl = <T>(file: string): T[] =>
  fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as T);

const SUM = "python3 -c 'print(sum(i*i for i in range(1, 101)))'";

/** A session's script: `tools` shell steps (each its own command unless `same`), then a final answer or an API error. */
function script(seed: number, tools: number, end: 'answer' | 'error', same = false): Turn[] {
  const turns: Turn[] = Array.from({ length: tools }, (_, i) => ({
    kind: 'shell',
    command: same ? SUM : `python3 -c 'print(${i} + 1)'`,
    usage: usageFor(seed, i),
  }));
  turns.push(
    end === 'answer'
      ? { kind: 'text', text: 'The sum of squares is 338350.', usage: usageFor(seed, tools) }
      : { kind: 'error', status: 400, message: 'messages.3.content.0: unexpected block type' },
  );
  return turns;
}

const SESSIONS = {
  one: script(1, 1, 'answer'),
  three: script(2, 3, 'answer'),
  ten: script(3, 10, 'answer'),
  twenty: script(6, 20, 'answer'),
  repeats: script(4, 12, 'answer', true),
  error: script(5, 2, 'error'),
};
type Name = keyof typeof SESSIONS;

const usages = (turns: Turn[]): ScriptedUsage[] => turns.flatMap((t) => (t.kind === 'error' ? [] : [t.usage]));
const sum = (us: ScriptedUsage[], f: (u: ScriptedUsage) => number) => us.reduce((a, u) => a + f(u), 0);

interface Imported {
  runs: Map<Name, RunRecord>;
  steps: Map<Name, StepRecord[]>;
  out: string;
  stdout: string;
  stderr: string;
}

/** Runs every scripted session with `run`, then imports the logs under `logs` (with `--format` unless detected by content). */
async function sessionsImported(kind: 'claude' | 'codex', detect: boolean): Promise<Imported> {
  const where = clientHome(kind);
  const ids = new Map<string, Name>();
  for (const [name, turns] of Object.entries(SESSIONS) as Array<[Name, Turn[]]>) {
    const up = await agentUpstream(turns);
    const r =
      kind === 'claude'
        ? await runClaude(up.url, 'compute the sum of squares 1..100 and verify it', where)
        : await runCodex(up.url, 'compute the sum of squares 1..100 and verify it', where);
    await up.close();
    expect(up.answered(), `${name}: ${r.stdout}${r.stderr}`).toBe(turns.length);
    const id =
      kind === 'claude'
        ? (JSON.parse(r.stdout) as { session_id: string }).session_id
        : /session id: (\S+)/.exec(r.stderr)?.[1];
    ids.set(id!, name);
  }
  const logs =
    kind === 'claude' ? path.join(where.home, '.claude', 'projects') : path.join(codexHome(where.home), 'sessions');
  const out = path.join(where.home, 'imported');
  const format = kind === 'claude' ? 'claude-code' : 'codex';
  const r = await benchInProcess([
    'import',
    logs,
    ...(detect ? [] : ['--format', format]),
    '-o',
    out,
    '--what-if',
    'repeat=3',
  ]);
  expect(r.code, r.stderr).toBe(0);
  const runs = new Map<Name, RunRecord>();
  const steps = new Map<Name, StepRecord[]>();
  for (const run of jsonl<RunRecord>(path.join(out, 'runs.jsonl')))
    runs.set(ids.get((run.extra!.imported as { session_id: string }).session_id)!, run);
  for (const s of jsonl<StepRecord>(path.join(out, 'steps.jsonl'))) {
    const name = [...runs].find(([, run]) => run.run_id === s.run_id)![0];
    steps.set(name, [...(steps.get(name) ?? []), s]);
  }
  return { runs, steps, out, ...r };
}

/** USD per 1M tokens in data/litellm-prices.json, written out here so the test checks the pricing, not repeats it. */
const SONNET = { input: 3, cacheRead: 0.3, write5m: 3.75, write1h: 6, output: 15 };
const GPT4O = { input: 2.5, cacheRead: 1.25, output: 10 };
/** USD of one call, each part at its rate (the Responses API's cache writes are billed as input). */
const sonnetUsd = (u: ScriptedUsage) =>
  (u.input * SONNET.input +
    u.cacheRead * SONNET.cacheRead +
    u.cacheWrite5m * SONNET.write5m +
    u.cacheWrite1h * SONNET.write1h +
    u.output * SONNET.output) /
  1e6;
const gpt4oUsd = (u: ScriptedUsage) =>
  ((u.input + u.cacheWrite5m) * GPT4O.input + u.cacheRead * GPT4O.cacheRead + u.output * GPT4O.output) / 1e6;

/** Every session's calls, and the usage of those the provider answered. */
const ALL_CALLS = Object.values(SESSIONS).reduce((a, turns) => a + turns.length, 0);
const ALL_USAGES = Object.values(SESSIONS).flatMap(usages);

/**
 * Each call carries its time and model, and each spend table (per day, per model) adds up to every call of
 * every session: the input, cache reads and output the provider reported, at `usd`.
 */
function expectSpend(
  got: Imported,
  model: string,
  input: (u: ScriptedUsage) => number,
  usd: (u: ScriptedUsage) => number,
) {
  for (const s of [...got.steps.values()].flat()) {
    expect(Number.isFinite(Date.parse(s.at!)), s.run_id).toBe(true);
    if (s.error === null) expect(s.model).toBe(model);
  }
  for (const file of ['spend_by_day.csv', 'spend_by_model.csv']) {
    const rows = readCsv(path.join(got.out, file));
    const total = (k: string) => rows.reduce((a, r) => a + Number(r[k]), 0);
    expect([total('calls'), total('input_tokens'), total('cached_tokens'), total('output_tokens')], file).toEqual([
      ALL_CALLS,
      sum(ALL_USAGES, input),
      sum(ALL_USAGES, (u) => u.cacheRead),
      sum(ALL_USAGES, (u) => u.output),
    ]);
    expect(total('cost_usd'), file).toBeCloseTo(sum(ALL_USAGES, usd), 12);
  }
}

describe.skipIf(!systemTool('claude-code', 'importing real Claude Code session logs'))(
  'bench import --format claude-code: real Claude Code sessions',
  () => {
    let got: Imported;
    beforeAll(async () => {
      got = await sessionsImported('claude', false);
    }, patient(480_000));
    afterAll(() => fs.rmSync(path.dirname(got?.out ?? '/nonexistent'), { recursive: true, force: true }));

    it('one run per session, one step per model call, every token total as the provider reported it', () => {
      expect(got.stdout).toMatch(/imported 6 run\(s\), 54 agent step\(s\)/);
      for (const [name, turns] of Object.entries(SESSIONS) as Array<[Name, Turn[]]>) {
        const run = got.runs.get(name)!;
        const us = usages(turns);
        expect(run.calls, name).toBe(turns.length);
        expect(got.steps.get(name)).toHaveLength(turns.length);
        expect(run.input_tokens, name).toBe(sum(us, (u) => u.input + u.cacheRead + u.cacheWrite5m + u.cacheWrite1h));
        expect(run.cached_tokens, name).toBe(sum(us, (u) => u.cacheRead));
        expect(run.output_tokens, name).toBe(sum(us, (u) => u.output));
        const steps = got.steps.get(name)!;
        expect(
          steps.reduce((a, s) => a + (s.cache_write_tokens ?? 0), 0),
          name,
        ).toBe(sum(us, (u) => u.cacheWrite5m + u.cacheWrite1h));
        expect(run.cost_usd, name).toBeCloseTo(sum(us, sonnetUsd), 12);
        expect(run.settings.model).toBe(`imported:${ANTHROPIC_MODEL}`);
      }
    });

    it('each call carries its time and model; spend per day and per model add up to every call', () =>
      expectSpend(got, ANTHROPIC_MODEL, (u) => u.input + u.cacheRead + u.cacheWrite5m + u.cacheWrite1h, sonnetUsd));

    it('the session that ends on an API error: the failed call is its last step, with the error, and the run stops as error', () => {
      const run = got.runs.get('error')!;
      const last = got.steps.get('error')!.at(-1)!;
      expect(last).toMatchObject({ input_tokens: 0, output_tokens: 0, cost_usd: 0 });
      expect(last.error).toContain('400');
      expect(run.stop_reason).toBe('error');
      expect(got.runs.get('three')).toMatchObject({ stop_reason: 'done', answer: 'The sum of squares is 338350.' });
    });

    it('the repeated command has one fingerprint (the Bash description differs each time), and --what-if repeat=3 stops it as spin', () => {
      const fps = new Set(
        got.steps
          .get('repeats')!
          .slice(0, 12)
          .map((s) => s.fingerprint),
      );
      expect([...fps]).toEqual([`Bash({"command":${JSON.stringify(SUM)}})`]);
      const derived = fs.readFileSync(path.join(got.out, 'whatif_runs.csv'), 'utf8');
      const spun = derived
        .split('\n')
        .filter((l) => l.includes(got.runs.get('repeats')!.run_id) && l.includes(',spin,'));
      expect(spun).toHaveLength(1);
      expect(derived.split('\n').filter((l) => l.includes(',spin,'))).toHaveLength(1);
    });

    it('no imported file holds the key the clients were given', () => {
      for (const f of fs.readdirSync(got.out, { recursive: true }) as string[]) {
        const p = path.join(got.out, f);
        if (fs.statSync(p).isFile()) expect(fs.readFileSync(p, 'utf8'), f).not.toContain(FAKE_KEY);
      }
    });
  },
);

describe.skipIf(!systemTool('codex', 'importing real Codex CLI session logs'))(
  'bench import (format found by content): real Codex CLI sessions',
  () => {
    let got: Imported;
    beforeAll(async () => {
      got = await sessionsImported('codex', true);
    }, patient(480_000));
    afterAll(() => fs.rmSync(path.dirname(got?.out ?? '/nonexistent'), { recursive: true, force: true }));

    it('one run per session, one step per model call, every token total as the provider reported it, reasoning included', () => {
      expect(got.stdout).toMatch(/imported 6 run\(s\), 54 agent step\(s\)/);
      for (const [name, turns] of Object.entries(SESSIONS) as Array<[Name, Turn[]]>) {
        const run = got.runs.get(name)!;
        const us = usages(turns);
        const steps = got.steps.get(name)!;
        expect(run.calls, name).toBe(turns.length);
        expect(steps).toHaveLength(turns.length);
        // The Responses API reports one input figure, cache writes inside it, and the cached part apart.
        expect(run.input_tokens, name).toBe(sum(us, (u) => u.input + u.cacheRead + u.cacheWrite5m));
        expect(run.cached_tokens, name).toBe(sum(us, (u) => u.cacheRead));
        expect(run.output_tokens, name).toBe(sum(us, (u) => u.output));
        expect(
          steps.reduce((a, s) => a + (s.reasoning_tokens ?? 0), 0),
          name,
        ).toBe(sum(us, (u) => u.reasoning));
        expect(run.cost_usd, name).toBeCloseTo(sum(us, gpt4oUsd), 12);
        expect(run.settings.model).toBe('imported:gpt-4o');
      }
      expect(got.runs.get('error')!.stop_reason).toBe('error');
      expect(got.steps.get('error')!.at(-1)!.error).toContain('unexpected block type');
    });

    it('each call carries its time and model; spend per day and per model add up to every call', () =>
      expectSpend(got, 'gpt-4o', (u) => u.input + u.cacheRead + u.cacheWrite5m, gpt4oUsd));

    it('the repeated command has one fingerprint, and --what-if repeat=3 stops it as spin', () => {
      const fps = new Set(
        got.steps
          .get('repeats')!
          .slice(0, 12)
          .map((s) => s.fingerprint),
      );
      expect([...fps]).toEqual([`exec_command({"cmd":${JSON.stringify(SUM)}})`]);
      const derived = fs.readFileSync(path.join(got.out, 'whatif_runs.csv'), 'utf8');
      expect(
        derived
          .split('\n')
          .filter((l) => l.includes(',spin,'))
          .map((l) => l.includes(got.runs.get('repeats')!.run_id)),
      ).toEqual([true]);
    });
  },
);
