// Real agent frameworks on their defaults against plain `bench serve`, each a small ReAct agent with
// two tools declared its own way (zod: nested objects, enums, optional and bounded fields):
// the OpenAI Agents SDK (Responses API), the AI SDK's openai(model) (Responses API) and
// openai.chat(model), LangGraph's createReactAgent on ChatOpenAI with streaming off and on, and the
// Anthropic SDK's tool runner (Messages, streamed and not). Each agent process runs with a fetch
// guard (test/fixtures/net-guard.mjs) that records every loopback exchange and refuses any other
// address at once, so the test sees what each framework sent and got, and what else it reached for.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer, UsageLine } from '../src/serve/server.ts';
import { serve } from './serve-helpers.ts';
import {
  CASES,
  GUARD,
  idOf,
  readWire,
  ROOT,
  toolCallCheck,
  type Case,
  type Outcome,
} from './support/framework-agents.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-frameworks-serve-'));
const logFile = path.join(tmp, 'usage.jsonl');

let server: RunningServer;
const outcomes = new Map<string, Outcome>();

function runAgent(c: Case, i: number): Promise<Outcome> {
  const usageDir = path.join(tmp, `usage-${i}`);
  fs.mkdirSync(usageDir);
  const wireLog = path.join(tmp, `wire-${i}.jsonl`);
  const env = {
    PATH: process.env.PATH,
    HOME: tmp,
    OPENAI_BASE_URL: server.url,
    OPENAI_API_KEY: 'unused',
    ANTHROPIC_BASE_URL: server.url.replace(/\/v1$/, ''),
    ANTHROPIC_API_KEY: 'unused',
    LOOPBENCH_MODEL: 'tiny-agent',
    LOOPBENCH_RUN_ID: 'run',
    AGENT_USAGE_DIR: usageDir,
    AGENT_WIRE_LOG: wireLog,
    ...c.env,
  };
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', GUARD, path.join(ROOT, 'examples/agents', c.script)], {
      cwd: ROOT,
      env,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => {
      const usageFile = path.join(usageDir, 'run.json');
      const usage = fs.existsSync(usageFile)
        ? (JSON.parse(fs.readFileSync(usageFile, 'utf8')) as Outcome['usage'])
        : [];
      resolve({ code, stdout, stderr, usage, wire: readWire(wireLog) });
    });
  });
}

beforeAll(async () => {
  server = await serve({ logFile });
  // All at once: each is a process of its own, and the server answers them in parallel.
  const done = await Promise.all(CASES.map((c, i) => runAgent(c, i)));
  CASES.forEach((c, i) => outcomes.set(c.name, done[i]!));
}, 120_000);

afterAll(async () => {
  await server.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe.each(CASES)('$name', (c) => {
  it('runs the ReAct loop on its defaults to the checked answer, over the protocol it speaks', () => {
    const o = outcomes.get(c.name)!;
    expect(o.code, o.stderr).toBe(0);
    expect(o.stdout).toMatch(/338350/);
    const calls = o.wire.filter((e) => e.url);
    expect(calls.length).toBeGreaterThanOrEqual(3);
    for (const e of calls) expect(e).toMatchObject({ url: c.route, status: 200 });
  });

  it('every tool call is valid for the JSON schema the framework sent', () => {
    const { checked, problems } = toolCallCheck(c.route, outcomes.get(c.name)!.wire);
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(2);
  });

  it("the framework's own reported usage equals what bench serve metered, call for call", () => {
    const o = outcomes.get(c.name)!;
    const metered = new Map(
      fs
        .readFileSync(logFile, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as UsageLine)
        .map((l) => [l.id, l]),
    );
    const ids = o.wire.filter((e) => e.url).map(idOf);
    expect(o.usage.map((u) => u.id)).toEqual(ids);
    for (const u of o.usage) {
      const line = metered.get(u.id)!;
      expect(line.api).toBe(c.route.split('/').at(-1) === 'completions' ? 'chat' : c.route.split('/').at(-1));
      expect({ input: u.input, output: u.output }).toEqual({
        input: line.prompt_tokens,
        output: line.completion_tokens,
      });
    }
  });

  it(
    c.reaches
      ? 'reaches beyond loopback only where the framework itself does (refused here at once, so nothing hangs)'
      : 'reaches nothing beyond loopback',
    () => {
      const blocked = outcomes.get(c.name)!.wire.flatMap((e) => (e.blocked ? [e.blocked] : []));
      if (!c.reaches) return expect(blocked).toEqual([]);
      expect(blocked.length).toBeGreaterThan(0);
      for (const url of blocked) expect(url).toMatch(c.reaches);
    },
  );
});
