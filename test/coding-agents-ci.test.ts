// docs/coding-agents.md "In CI, on a real model": each CLI's budgets file and GitHub Actions job, read
// from the page and run as written — the job's `run:` lines with bash as the runner runs them, the
// real CLI (test-clients/) where the job installs it, `npx bench` this checkout's bench — against a
// scripted provider on 127.0.0.1 whose URL, and a fake key for the secret, are all the test changes.
// Within the cap the check passes and meters every call as the provider reported it; costlier answers
// make --ci-max-spend stop the check with exit 1 and the lines the page shows; the key stays out of
// everything but the provider's requests.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ownVersion } from '../src/contracts/paths.ts';
import type { RunRecord, StepRecord } from '../src/contracts/records.ts';
import {
  agentUpstream,
  gatewayRecorded,
  stepUsage,
  type AgentUpstream,
  type ScriptedUsage,
  type Turn,
} from './helpers/agent-upstream.ts';
import { ROOT } from './helpers/cli.ts';
import { CLAUDE_BIN, claudeEnv, clientHome, codexEnv, FAKE_KEY } from './helpers/coding-clients.ts';
import { codeBlocks } from './helpers/doc-blocks.ts';
import { systemTool } from './helpers/system-tools.ts';
import { npxBench, parseWorkflow, type Step } from './helpers/workflows.ts';

const PAGE = path.join(ROOT, 'docs/coding-agents.md');
/** test-clients/node_modules/.bin: both CLIs, where the job's `npm install -g` puts them on PATH. */
const CLIENT_BIN = path.dirname(CLAUDE_BIN);
const PINNED = (
  JSON.parse(fs.readFileSync(path.join(ROOT, 'test-clients/package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  }
).dependencies;

let upstream: AgentUpstream | undefined;
const homes: string[] = [];
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
  for (const h of homes.splice(0)) fs.rmSync(h, { recursive: true, force: true });
});

/** A session's calls, sized like these CLIs' prompts (the gateway believes a prompt count within 1/4–4× its own). */
const usage = (i: number, output = 40 + 2 * i): ScriptedUsage => ({
  input: 8000 + i,
  cacheRead: i === 0 ? 0 : 12_000 + 10 * i,
  cacheWrite5m: 4000 + i,
  cacheWrite1h: i % 2 ? 500 + i : 0,
  output,
  reasoning: 10 + i,
});
const ANSWER = 'The sum of squares 1..100 is 338350.';
const COMMAND = "python3 -c 'print(sum(i*i for i in range(1,101)))'";

const CLIENTS = [
  {
    name: 'Claude Code',
    tool: 'claude-code',
    available: () => systemTool('claude-code', "Claude Code's CI job"),
    family: 'anthropic' as const,
    pkg: '@anthropic-ai/claude-code',
    env: claudeEnv,
    provider: (url: string) => ({ ANTHROPIC_BASE_URL: url }),
    // At claude-sonnet-4-5's $15/M output, a session of one such answer costs about $0.34.
    costlyOutput: 20_000,
  },
  {
    name: 'Codex CLI',
    tool: 'codex',
    available: () => systemTool('codex', "Codex CLI's CI job"),
    family: 'openai' as const,
    pkg: '@openai/codex',
    env: codexEnv,
    provider: (url: string) => ({ OPENAI_BASE_URL: `${url}/v1` }),
    // At o4-mini's $4.40/M output, a session of one such answer costs about $0.32.
    costlyOutput: 70_000,
  },
];

/** The page's budgets file (named by its first line's comment) and job for one CLI. */
function fromPage(name: string) {
  const [budgets, wf] = codeBlocks(PAGE).filter((b) => b.heading === `${name} in CI` && b.lang === 'yaml');
  const file = /^# (\S+\.yaml) /.exec(budgets!.text)![1]!;
  const jobs = Object.values(parseWorkflow(wf!.text).jobs);
  expect(jobs).toHaveLength(1);
  return { file, budgets: budgets!.text, steps: jobs[0]!.steps };
}

/** The lines the page shows for Claude Code's check the cap stopped (`…` elides), the amount spent left open, for `file`. */
const cappedLines = (file: string) =>
  codeBlocks(PAGE)
    .find((b) => b.heading === 'In CI, on a real model' && b.lang === '')!
    .text.trim()
    .split('\n')
    .filter((l) => l !== '…')
    .map(
      (l) =>
        new RegExp(
          l
            .replace('loopbench/claude-code.yaml', file)
            .split(/\$[\d.]+ spent/)
            .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
            .join('\\$[\\d.]+ spent'),
        ),
    );

function bash(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    // As the runner runs a `run:` step.
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', command], { cwd, env });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

const jsonl = <T>(f: string) =>
  fs
    .readFileSync(f, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as T);

/** Every file under `dir` whose bytes hold `text`. */
function filesHolding(dir: string, text: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name))
    .filter((f) => fs.readFileSync(f).includes(text));
}

describe('docs/coding-agents.md: the CI jobs, run as written against a scripted provider', () => {
  for (const c of CLIENTS)
    it.skipIf(!c.available())(
      `${c.name}: metered call for call within the cap; costlier answers stop the check at --ci-max-spend (exit 1); the key stays with the provider`,
      async () => {
        const page = fromPage(c.name);
        const commands = page.steps.filter((s): s is Step & { run: string } => Boolean(s.run));
        // The installs are the runner's: here the CLI is test-clients' and bench this checkout's.
        expect(commands.filter((s) => s.run.startsWith('npm ')).map((s) => s.run)).toEqual([
          `npm install --no-save --no-audit --no-fund loopbench-cli@${ownVersion()}`,
          `npm install -g ${c.pkg}@${PINNED[c.pkg]}`,
        ]);
        const checks = commands.filter((s) => !s.run.startsWith('npm '));
        expect(checks.map((s) => s.run)).toEqual([expect.stringMatching(`^npx bench check ${page.file} `)]);
        const upload = page.steps.find((s) => s.uses?.startsWith('actions/upload-artifact'))!;

        const job = async (script: Turn[]) => {
          const where = clientHome(`ci-${c.tool}`);
          homes.push(where.home);
          fs.mkdirSync(path.join(where.project, path.dirname(page.file)), { recursive: true });
          fs.writeFileSync(path.join(where.project, page.file), page.budgets);
          npxBench(path.join(where.home, 'bin'));
          const summary = path.join(where.home, 'step-summary.md');
          upstream = await agentUpstream(script);
          const stepEnv = Object.fromEntries(
            Object.entries(checks[0]!.env ?? {}).map(([k, v]) => {
              expect(v).toBe(`\${{ secrets.${k} }}`);
              return [k, FAKE_KEY];
            }),
          );
          const env = {
            ...c.env(where.home),
            PATH: `${path.join(where.home, 'bin')}:${CLIENT_BIN}:${process.env.PATH}`,
            GITHUB_ACTIONS: 'true',
            GITHUB_STEP_SUMMARY: summary,
            FORCE_COLOR: '0',
            ...stepEnv,
            ...c.provider(upstream.url),
          };
          const { code, out } = await bash(checks[0]!.run, where.project, env);
          const results = path.join(where.project, upload.with!.path as string);
          const steps = jsonl<StepRecord>(path.join(results, 'steps.jsonl'));
          // The key reached the provider, and nothing else: not the results, the job summary, the CLI's home, the output.
          expect(upstream.requests.length).toBeGreaterThan(0);
          expect(upstream.requests.every((q) => JSON.stringify(q.headers).includes(FAKE_KEY))).toBe(true);
          expect(filesHolding(where.home, FAKE_KEY)).toEqual([]);
          expect(out).not.toContain(FAKE_KEY);
          // Every call carries the provider's usage, call for call.
          expect(steps.map((s) => s.usage_source)).toEqual(steps.map(() => 'provider'));
          expect(steps.map(stepUsage)).toEqual(
            script.map((t) => gatewayRecorded[c.family]((t as { usage: ScriptedUsage }).usage)),
          );
          // What the job's summary and its uploaded results hold.
          expect(fs.readFileSync(summary, 'utf8')).toContain(fs.readFileSync(path.join(results, 'summary.md'), 'utf8'));
          for (const f of ['runs.jsonl', 'junit.xml', 'report.html'])
            expect(fs.existsSync(path.join(results, f)), f).toBe(true);
          return { code, out, runs: jsonl<RunRecord>(path.join(results, 'runs.jsonl')) };
        };

        // Within the cap: 3 sessions of a command and an answer each, every budget holds.
        const cheap = await job(
          [0, 1, 2].flatMap((k): Turn[] => [
            { kind: 'shell', command: COMMAND, usage: usage(2 * k) },
            { kind: 'text', text: ANSWER, usage: usage(2 * k + 1) },
          ]),
        );
        expect(cheap.code, cheap.out).toBe(0);
        expect(cheap.out).not.toContain('::error');
        expect(cheap.runs.map((r) => [r.stop_reason, r.success])).toEqual([
          ['done', true],
          ['done', true],
          ['done', true],
        ]);
        await upstream!.close();
        upstream = undefined;

        // Costlier answers: after two sessions the third's max_cost no longer fits under the cap.
        const costly = await job([
          { kind: 'text', text: ANSWER, usage: usage(0, c.costlyOutput) },
          { kind: 'text', text: ANSWER, usage: usage(1, c.costlyOutput) },
        ]);
        expect(costly.code, costly.out).toBe(1);
        expect(costly.runs).toHaveLength(2);
        expect(upstream!.answered()).toBe(2);
        for (const line of cappedLines(page.file)) expect(costly.out).toMatch(line);
        // The cap's is the only budget breached.
        expect(costly.out.match(/^::error/gm)).toHaveLength(1);
      },
      300_000,
    );
});
