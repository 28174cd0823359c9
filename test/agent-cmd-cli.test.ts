// `bench run --agent-cmd` from the command line: the stdlib tiny agent swept, reported and gated as a
// user runs it, and Ctrl-C. (The contract and each way a run ends: agent-cmd.test.ts, in process.)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunRecord, StepRecord } from '../src/contracts/records.ts';
import { bench, spawnBench } from './helpers/cli.ts';
import { deriveRun } from '../src/whatif/derive-run.ts';
import { pythonAgent } from './support/agent-sweep.ts';
import { patient } from './helpers/patient.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-agent-cmd-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const TINY = 'python3 examples/agents/tiny_agent.py';
const env = { PATH: process.env.PATH, HOME: process.env.HOME, FORCE_COLOR: '0' };
const read = <T>(file: string): T[] =>
  fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);

/** A small Python agent for one case; `body` runs with `call()` (one model call) available. */
const agent = (name: string, body: string) => pythonAgent(tmp, name, body);

describe('the tiny agent (stdlib Python, its own ReAct loop) through --agent-cmd', () => {
  const dir = path.join(tmp, 'tiny');
  let runs: RunRecord[];
  let steps: StepRecord[];

  beforeAll(async () => {
    const r = await bench(
      [
        '--agent-cmd',
        TINY,
        '-s',
        'tiny-agent-sum-of-squares',
        '--steps',
        '3,10',
        '--repeat',
        '3',
        '-j',
        '3',
        '-o',
        dir,
        '-q',
      ],
      env,
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    runs = read<RunRecord>(path.join(dir, 'runs.jsonl'));
    steps = read<StepRecord>(path.join(dir, 'steps.jsonl'));
  }, patient(60_000));

  it('records every planned run, with the stop reason the agent or the gateway decided', () => {
    expect(runs).toHaveLength(6);
    const at3 = runs.filter((r) => r.settings.limits.max_steps === 3);
    const at10 = runs.filter((r) => r.settings.limits.max_steps === 10);
    // The sim needs 3–4 steps: at 10 the agent always answers; at 3 the 4th call of a 4-step run is refused.
    expect(at10.every((r) => r.stop_reason === 'done' && r.success === true && r.answer?.includes('338350'))).toBe(
      true,
    );
    expect(new Set(at3.map((r) => r.stop_reason))).toEqual(new Set(['done', 'max_steps']));
    for (const r of at3.filter((x) => x.stop_reason === 'max_steps')) {
      expect(r.steps).toBe(3);
      expect(r.success).toBe(false);
    }
    expect(runs.every((r) => r.agent === 'external' && r.settings.agent.agent_cmd === TINY)).toBe(true);
  });

  it('writes one StepRecord per call, adding up to the run totals', () => {
    for (const r of runs) {
      const own = steps.filter((s) => s.run_id === r.run_id);
      expect(own).toHaveLength(r.calls);
      expect(own.reduce((a, s) => a + s.input_tokens, 0)).toBe(r.input_tokens);
      expect(own.every((s) => s.action === null || s.action === 'run_python')).toBe(true);
    }
  });

  it('bench report rebuilds the reports from the results directory', async () => {
    fs.rmSync(path.join(dir, 'summary.md'));
    const r = await bench(['report', dir], env);
    expect(r.code).toBe(0);
    expect(fs.readFileSync(path.join(dir, 'summary.md'), 'utf8')).toMatch(/tiny-agent-sum-of-squares steps=10/);
  });

  it('what-if limits derive from the agent’s own runs: steps 3 from the 10-step runs equals the runs made at 3, figure by figure', () => {
    // The sim behind the gateway is seeded per repeat, so the runs at 3 are the runs at 10 cut short.
    const limits = runs.find((r) => r.settings.limits.max_steps === 3)!.settings.limits;
    for (const r of runs.filter((x) => x.settings.limits.max_steps === 10)) {
      const d = deriveRun(
        r,
        steps.filter((s) => s.run_id === r.run_id),
        limits,
        'derived',
      );
      if (!d.ok) throw new Error(d.reason);
      const live = runs.find((x) => x.settings.limits.max_steps === 3 && x.settings.repeat === r.settings.repeat)!;
      for (const f of [
        'steps',
        'calls',
        'input_tokens',
        'output_tokens',
        'cost_usd',
        'stop_reason',
        'stop_step',
        'success',
      ] as const)
        expect(d.run[f], `repeat ${r.settings.repeat}: ${f}`).toEqual(live[f]);
    }
  });

  it('bench report --what-if on an --agent-cmd sweep: derived step limits, and per limit what the records cannot answer', async () => {
    const r = await bench(
      ['report', dir, '--what-if', 'steps=2', '--what-if', 'cost=0.001', '--what-if', 'timeout=1000'],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/tiny-agent-sum-of-squares steps=2 \(derived\) +3 +0\/3 +max_steps 3 @2/);
    expect(r.stdout).toMatch(
      /what-if cost=0\.001 from tiny-agent-sum-of-squares steps=10 refused: tiny-agent-sum-of-squares steps=10: an --agent-cmd agent's calls were admitted against each request's own max_tokens/,
    );
    // A timeout far above what the runs took changes nothing: derived, the same outcome.
    expect(r.stdout).toMatch(/tiny-agent-sum-of-squares steps=10 timeout=1000 \(derived\) +3 +3\/3 +done 3/);
    expect(fs.readFileSync(path.join(dir, 'whatif_runs.csv'), 'utf8')).toMatch(/external/);
  });

  it(
    'bench check gates the agent with a budgets file that names it (agent_cmd:)',
    async () => {
      // One budgets file, the same scenario twice: a budget the agent holds, and one it cannot.
      const entry = (id: string, steps: number) =>
        `  - scenario: tiny-agent-sum-of-squares\n    id: ${id}\n    assertions:\n      stop_reason: [done]\n      steps: { max: ${steps} }\n`;
      fs.writeFileSync(
        path.join(tmp, 'budgets.yaml'),
        `agent_cmd: ${TINY}\nmodel: sim\nrepeats: 3\nlimits: { steps: 10 }\nscenarios:\n${entry('holds', 4)}${entry('too-tight', 2)}`,
      );
      const r = await bench(['check', path.join(tmp, 'budgets.yaml'), '-o', path.join(tmp, 'check'), '-q'], env);
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/holds[^\n]*pass|pass[^\n]*holds/i);
      expect(r.stdout).toMatch(/too-tight[^\n]*fail|fail[^\n]*too-tight/i);
      // The results judge again, without running the agent: the same verdict.
      const again = await bench(['check', path.join(tmp, 'budgets.yaml'), '--from', path.join(tmp, 'check')], env);
      expect(again.code).toBe(1);
      expect(again.stdout).toMatch(/too-tight[^\n]*fail|fail[^\n]*too-tight/i);
    },
    patient(60_000),
  );
});

describe('an --agent-cmd sweep priced as an Anthropic model, prompt caching on', () => {
  it(
    'its simulated model caches as Anthropic bills it: the first long prompt written, the same prompt again read',
    async () => {
      const cmd = agent(
        'twice',
        `def ask(text):
    req = urllib.request.Request(os.environ["OPENAI_BASE_URL"] + "/chat/completions",
        data=json.dumps({"model": "m", "messages": [{"role": "user", "content": text}]}).encode(),
        headers={"content-type": "application/json", "authorization": "Bearer " + os.environ["OPENAI_API_KEY"]})
    return json.load(urllib.request.urlopen(req))
long = "Sum the squares of 1..100 and say why. " * 200
ask(long)
ask(long)`,
      );
      const dir = path.join(tmp, 'anthropic-cache');
      const r = await bench(
        [
          '--agent-cmd',
          cmd,
          '-s',
          'tiny-agent-sum-of-squares',
          '--steps',
          '5',
          '-n',
          '1',
          '--price-model',
          'claude-sonnet-4-5',
          '--prompt-cache',
          'on',
          '-o',
          dir,
          '-q',
        ],
        env,
      );
      expect(r.code, r.stderr).toBe(0);
      const [first, second] = read<StepRecord>(path.join(dir, 'steps.jsonl'));
      expect(first!.input_tokens).toBeGreaterThan(1024);
      expect([first!.cached_tokens, first!.cache_write_tokens]).toEqual([0, first!.input_tokens]);
      // The same messages again: all of them read from the cache; the 3 tokens that prime the answer written.
      expect([second!.cached_tokens, second!.cache_write_tokens]).toEqual([second!.input_tokens - 3, 3]);
      expect(second!.cost_usd).toBeCloseTo(
        ((second!.input_tokens - 3) * 0.3 + 3 * 3.75 + second!.output_tokens * 15) / 1e6,
        12,
      );
      expect([first!.tokens_estimated, second!.tokens_estimated]).toEqual(['o200k_base', 'o200k_base']);
    },
    patient(60_000),
  );
});

describe('a sweep in which no run produced a result', () => {
  it(
    'an agent file that does not exist: exit 1, the first error names the path on stderr, and no MAX_STEPS is recommended',
    async () => {
      const dir = path.join(tmp, 'missing');
      const r = await bench(
        [
          '--agent-cmd',
          'python3 missing.py',
          '-s',
          'tiny-agent-sum-of-squares',
          '--steps',
          '3,10',
          '-n',
          '1',
          '-o',
          dir,
        ],
        env,
      );
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        /^bench: no run produced a result: all 2 runs ended in an error; the first \(tiny-agent-sum-of-squares_steps=3_r000\): the agent exited with code 2 at step 0: .*can't open file '.*missing\.py'/m,
      );
      expect(r.stdout).not.toMatch(/recommended MAX_STEPS/);
      expect(r.stdout.split('\n')[0]).toBe(
        '» tiny-agent-sum-of-squares: no MAX_STEPS is recommended: all 2 runs ended in an error, so the sweep measured no loop. Next: fix the error (bench prints the first on stderr; each run has its own in runs.jsonl, stop_detail) and run the sweep again.',
      );
      expect(fs.readFileSync(path.join(dir, 'summary.md'), 'utf8')).not.toMatch(/recommended MAX_STEPS/);
    },
    patient(60_000),
  );
});

describe('Ctrl-C', () => {
  it(
    'Ctrl-C: the agents are stopped and recorded as interrupted, the reports written, exit 130',
    async () => {
      const marker = path.join(tmp, 'started');
      // Each agent marks the file once its call is answered; Ctrl-C comes when both are mid-run.
      const cmd = agent(
        'slow',
        `call()\nopen(${JSON.stringify(marker)}, "a").write("x")\nimport time\ntime.sleep(3600)`,
      );
      const dir = path.join(tmp, 'interrupted');
      const s = spawnBench(
        ['--agent-cmd', cmd, '-s', 'tiny-agent-sum-of-squares', '--repeat', '2', '-j', '2', '-o', dir, '-q'],
        env,
      );
      await expect.poll(() => fs.existsSync(marker) && fs.readFileSync(marker, 'utf8')).toBe('xx');
      s.child.kill('SIGINT');
      const done = await s.done;
      expect(done.code).toBe(130);
      const runs = read<RunRecord>(path.join(dir, 'runs.jsonl'));
      expect(runs.map((r) => r.stop_reason)).toEqual(['interrupted', 'interrupted']);
      expect(JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8')).status).toBe('interrupted');
      expect(fs.existsSync(path.join(dir, 'summary.md'))).toBe(true);
    },
    patient(60_000),
  );
});
