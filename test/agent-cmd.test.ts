// `bench run --agent-cmd` in process (the CLI: agent-cmd-cli.test.ts): the environment contract, the
// upstream key kept from the agent and the records, and each way an agent's run ends.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../src/serve/server.ts';
import { UsageError } from '../src/contracts/errors.ts';
import { agentSweep, pythonAgent } from './support/agent-sweep.ts';
import { endSleep, sleepRunning, uniqueSleep } from './helpers/processes.ts';
import { detectContainment } from '../src/tools/containment.ts';
import { serve } from './serve-helpers.ts';
import { stubUpstream, type StubUpstream } from './helpers/stub-upstream.ts';
import { buildSweepSpec } from '../src/runner/plan.ts';
import { RUN_DEFAULTS } from '../src/runner/run-defaults.ts';
import { transportFrom } from '../src/runner/transport.ts';
import { patient } from './helpers/patient.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-agent-cmd-'));

/** A fresh directory under tmp for the agents' environment dumps. */
function envDumps(name: string): string {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir);
  return dir;
}
/** A Python line that writes the agent's whole environment to DIR/<run id>.json. */
const dumpEnvTo = (dir: string) =>
  `json.dump(dict(os.environ), open(os.path.join(${JSON.stringify(dir)}, os.environ["LOOPBENCH_RUN_ID"] + ".json"), "w"))`;
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const TINY = 'python3 examples/agents/tiny_agent.py';

/** A small Python agent for one case; `body` runs with `call()` (one model call) available. */
const agent = (name: string, body: string) => pythonAgent(tmp, name, body);
describe('the environment contract, and the upstream key', () => {
  let upstream: RunningServer;
  beforeAll(async () => {
    upstream = await serve();
  });
  afterAll(() => upstream.close());

  it(
    'gives the agent the gateway, a virtual key and the scenario; the real key reaches no agent, record or transcript',
    async () => {
      const SECRET = 'sk-proj-UPSTREAM-do-not-leak-4242';
      const dumps = envDumps('env');
      const cmd = agent(
        'env-dump',
        `${dumpEnvTo(dumps)}\ncall()\nprint("thinking...")\nprint(json.dumps({"answer": "338350"}))`,
      );
      // The key is in the harness's environment twice: as OPENAI_API_KEY, and copied into another variable.
      const { dir, runs, steps } = await agentSweep(
        { agentCmd: cmd, scenario: 'tiny-agent-sum-of-squares', model: 'openai:tiny-agent', steps: '7', repeat: '2' },
        { OPENAI_API_KEY: SECRET, OPENAI_BASE_URL: upstream.url, MY_COPY: `key=${SECRET}` },
      );
      expect(runs.map((x) => [x.stop_reason, x.answer, x.success, x.calls])).toEqual([
        ['done', '338350', true, 1],
        ['done', '338350', true, 1],
      ]);
      expect(steps.every((s) => s.input_tokens > 0 && s.output_tokens > 0)).toBe(true);
      for (const run of runs) {
        const e = JSON.parse(fs.readFileSync(path.join(dumps, `${run.run_id}.json`), 'utf8')) as Record<string, string>;
        expect(e.OPENAI_API_KEY).toMatch(/^lb-[A-Za-z0-9_-]{20,}$/);
        expect(e.OPENAI_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
        expect(e).toMatchObject({
          LOOPBENCH_RUN_ID: run.run_id,
          LOOPBENCH_SEED: String(run.settings.seed),
          LOOPBENCH_MAX_STEPS: '7',
          LOOPBENCH_GOAL: expect.stringMatching(/sum of squares/),
        });
        expect(e.LOOPBENCH_SYSTEM).toMatch(/run_python/);
        expect(JSON.stringify(e)).not.toContain(SECRET);
        expect(e.MY_COPY).toBeUndefined();
      }
      const files = fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
      expect(files.map((f) => f.name)).toContain(`${runs[0]!.run_id}.json`);
      expect(
        files
          .filter((f) => fs.readFileSync(path.join(f.parentPath, f.name), 'utf8').includes(SECRET))
          .map((f) => f.name),
      ).toEqual([]);
    },
    patient(30_000),
  );
});

describe('an Anthropic model: --model anthropic:<model>', () => {
  let sim: RunningServer;
  let proxy: StubUpstream;
  const seen: Array<{ path: string | undefined; headers: http.IncomingHttpHeaders }> = [];
  beforeAll(async () => {
    sim = await serve();
    // Anthropic's API as far as the gateway can tell: bench serve answers, and each request's headers are kept.
    proxy = await stubUpstream((req, res, body) => {
      seen.push({ path: req.url, headers: req.headers });
      const up = http.request(
        `${sim.url.replace(/\/v1$/, '')}${req.url}`,
        { method: 'POST', headers: { 'content-type': 'application/json' } },
        (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        },
      );
      up.end(body);
    });
  });
  afterAll(async () => {
    await proxy.close();
    await sim.close();
  });

  it(
    "forwards the agent's Messages calls with $ANTHROPIC_API_KEY as x-api-key, which the agent never sees; the agent's own ANTHROPIC_* point at the gateway; a Chat Completions call is refused",
    async () => {
      const SECRET = 'sk-ant-UPSTREAM-do-not-leak-7373';
      const dumps = envDumps('env-anthropic');
      const cmd = agent(
        'anthropic-env',
        `${dumpEnvTo(dumps)}
body = {"model": "claude-whatever", "max_tokens": 200, "system": os.environ["LOOPBENCH_SYSTEM"], "messages": [{"role": "user", "content": os.environ["LOOPBENCH_GOAL"]}]}
req = urllib.request.Request(os.environ["ANTHROPIC_BASE_URL"] + "/v1/messages", data=json.dumps(body).encode(), headers={"content-type": "application/json", "x-api-key": os.environ["ANTHROPIC_API_KEY"], "anthropic-version": "2023-06-01"})
m = json.load(urllib.request.urlopen(req))
assert m["type"] == "message", m
try:
    call()
    sys.exit("a Chat Completions call went through")
except urllib.error.HTTPError as e:
    assert e.code == 400 and json.load(e)["error"]["code"] == "loopbench_no_openai_upstream"
print(json.dumps({"answer": "338350"}))`,
      );
      seen.length = 0;
      const { dir, runs, steps } = await agentSweep(
        {
          agentCmd: cmd,
          scenario: 'tiny-agent-sum-of-squares',
          model: 'anthropic:tiny-agent',
          steps: '7',
          repeat: '1',
        },
        { ANTHROPIC_API_KEY: SECRET, ANTHROPIC_BASE_URL: proxy.url.replace(/\/v1$/, '') },
      );
      // The refused Chat Completions call is one of the run's calls, recorded with its error; it took no step.
      expect(runs.map((x) => [x.stop_reason, x.success, x.steps, x.calls])).toEqual([['done', true, 1, 2]]);
      expect(steps[0]!.input_tokens).toBeGreaterThan(0);
      expect(steps[1]).toMatchObject({ step: 1, input_tokens: 0, cost_usd: 0 });
      expect(steps[1]!.error).toMatch(/^refused by the gateway \(HTTP 400 loopbench_no_openai_upstream\)/);
      expect(
        seen.map((x) => [x.path, x.headers['x-api-key'], x.headers['anthropic-version'], x.headers.authorization]),
      ).toEqual([['/v1/messages', SECRET, '2023-06-01', undefined]]);
      const e = JSON.parse(fs.readFileSync(path.join(dumps, `${runs[0]!.run_id}.json`), 'utf8')) as Record<
        string,
        string
      >;
      expect(e.ANTHROPIC_API_KEY).toMatch(/^lb-/);
      expect(e.ANTHROPIC_API_KEY).toBe(e.OPENAI_API_KEY);
      expect(e.ANTHROPIC_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(JSON.stringify(e)).not.toContain(SECRET);
      const files = fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
      expect(
        files
          .filter((f) => fs.readFileSync(path.join(f.parentPath, f.name), 'utf8').includes(SECRET))
          .map((f) => f.name),
      ).toEqual([]);
    },
    patient(30_000),
  );

  it("is refused for loopbench's own loops, and without its key, before anything runs", () => {
    expect(() =>
      buildSweepSpec(
        { ...RUN_DEFAULTS, model: 'anthropic:claude-sonnet-4-5' },
        transportFrom(RUN_DEFAULTS, { ANTHROPIC_API_KEY: 'k' }),
      ),
    ).toThrow(/--agent-cmd CMD --model anthropic:claude-sonnet-4-5/);
    expect(() =>
      buildSweepSpec(
        { ...RUN_DEFAULTS, agentCmd: 'true', model: 'anthropic:claude-sonnet-4-5' },
        transportFrom(RUN_DEFAULTS, {}),
      ),
    ).toThrow(/ANTHROPIC_API_KEY is not set/);
  });
});

describe('how an agent process ends', () => {
  it(
    'a brake at the gateway: the tiny agent on a spinning profile is refused (spin) and stops',
    async () => {
      // recursive-verify's fixed check lands on run_python with the same code every other step.
      const { runs, steps } = await agentSweep({
        agentCmd: TINY,
        scenario: 'tiny-agent-sum-of-squares',
        model: 'sim:autogpt-recursive-verification',
        steps: '30',
        maxRepeat: '2',
        repeat: '1',
      });
      expect(runs[0]).toMatchObject({ stop_reason: 'spin', calls: 6, success: false, answer: null });
      expect(steps.map((s) => s.action)).toEqual(Array(6).fill('run_python'));
    },
    patient(30_000),
  );

  // A timeout of a few seconds leaves a loaded machine room to start Python and make the one call.
  it(
    'timeout: an agent that outlives --timeout is stopped with everything it started',
    async () => {
      const sleep = uniqueSleep();
      const cmd = agent('hang', `import subprocess\np = subprocess.Popen(["sleep", "${sleep}"])\ncall()\np.wait()`);
      try {
        const { runs } = await agentSweep({
          agentCmd: cmd,
          scenario: 'tiny-agent-sum-of-squares',
          timeout: '5',
          repeat: '1',
        });
        expect(runs[0]!.stop_reason).toBe('timeout');
        expect(runs[0]!.stop_detail).toMatch(/process tree was killed/);
        // The call was made, so the child had started: it ends with the agent.
        expect(runs[0]!.calls).toBe(1);
        await expect.poll(() => sleepRunning(sleep)).toBe(false);
      } finally {
        endSleep(sleep);
      }
    },
    patient(60_000),
  );

  it.each([
    ['keeps its environment (found by its tag)', ['setsid'], true],
    [
      'clears its environment too (only a PID namespace ends it)',
      ['setsid', 'env', '-i'],
      detectContainment() === 'bwrap',
    ],
  ])(
    'an agent that exits at once but leaves a setsid child holding its stdout, which %s, is not waited for',
    async (_name, prefix, killed) => {
      // The child leaves a mark, then sleeps for over a day as `sleep <unique>`; the agent exits once the mark is there.
      const sleep = uniqueSleep();
      const mark = path.join(tmp, `started-${prefix.length}`);
      const child = [...prefix, 'sh', '-c', `touch ${mark}; exec sleep ${sleep}`];
      const cmd = agent(
        `setsid-${prefix.length}`,
        `import subprocess, time\nsubprocess.Popen(${JSON.stringify(child)})\nwhile not os.path.exists(${JSON.stringify(mark)}): time.sleep(0.02)\ncall()\nprint("338350")`,
      );
      try {
        const { runs } = await agentSweep({
          agentCmd: cmd,
          scenario: 'tiny-agent-sum-of-squares',
          timeout: '20',
          repeat: '1',
        });
        // Not the child's sleep, nor the 20 s timeout: the agent's own exit, and the grace for the pipes.
        expect(runs[0]).toMatchObject({ stop_reason: 'done', answer: '338350', success: true });
        expect(runs[0]!.stop_detail).toMatch(
          killed
            ? /^the agent exited 0 after 1 step\(s\)/
            : /a process it left behind still held its output open 1 s later, so its output was read no further/,
        );
        // The child was ended with the agent (by its tag, or with the namespace), or it lives on, and the record says so.
        if (killed) await expect.poll(() => sleepRunning(sleep)).toBe(false);
        else expect(sleepRunning(sleep)).toBe(true);
      } finally {
        endSleep(sleep);
      }
    },
    60_000,
  );

  it(
    'timeout: the run ends at --timeout even when the agent has a setsid child holding its stdout',
    async () => {
      // The child holds the agent's stdout for over a day: a run that waited for it would not end within the test's time.
      const sleep = uniqueSleep();
      const cmd = agent(
        'setsid-hang',
        `import subprocess\nsubprocess.Popen(["setsid", "env", "-i", "sleep", "${sleep}"])\ncall()\nimport time\ntime.sleep(3600)`,
      );
      try {
        const { runs } = await agentSweep({
          agentCmd: cmd,
          scenario: 'tiny-agent-sum-of-squares',
          timeout: '5',
          repeat: '1',
        });
        expect(runs[0]).toMatchObject({ stop_reason: 'timeout', calls: 1 });
        expect(runs[0]!.stop_detail).toMatch(/process tree was killed at step 1/);
      } finally {
        endSleep(sleep);
      }
    },
    patient(60_000),
  );

  it(
    'error: a failing agent is recorded as error with the tail of its stderr',
    async () => {
      const cmd = agent('fail', `call()\nsys.stderr.write("Traceback: ValueError: boom in my agent\\n")\nsys.exit(2)`);
      const { runs } = await agentSweep({ agentCmd: cmd, scenario: 'tiny-agent-sum-of-squares', repeat: '1' });
      expect(runs[0]!.stop_reason).toBe('error');
      expect(runs[0]!.stop_detail).toMatch(/exited with code 2 at step 1: Traceback: ValueError: boom in my agent/);
      expect(runs[0]!.success).toBe(false);
    },
    patient(30_000),
  );

  it(
    'error: an agent that reports its failure on stdout (as Claude Code does) has the end of its stdout in the stop detail',
    async () => {
      const cmd = agent(
        'fail-stdout',
        `call()\nprint('{"type":"result","is_error":true,"result":"API Error: 400 messages.1.role"}')\nsys.exit(1)`,
      );
      const { runs } = await agentSweep({ agentCmd: cmd, scenario: 'tiny-agent-sum-of-squares', repeat: '1' });
      expect(runs[0]!.stop_detail).toMatch(
        /exited with code 1 at step 1: its stdout ends: \{"type":"result","is_error":true,"result":"API Error: 400 messages\.1\.role"\}$/,
      );
    },
    patient(30_000),
  );

  it(
    'done: the last line of stdout is the answer, checked by the scenario',
    async () => {
      const cmd = agent('plain', `call()\nprint("working")\nprint("The sum is 338,350.")\nprint("")`);
      const wrong = agent('wrong', `call()\nprint("The sum is 338,351.")`);
      const right = await agentSweep({ agentCmd: cmd, scenario: 'tiny-agent-sum-of-squares', repeat: '1' });
      const bad = await agentSweep({ agentCmd: wrong, scenario: 'tiny-agent-sum-of-squares', repeat: '1' });
      expect(right.runs[0]).toMatchObject({ stop_reason: 'done', answer: 'The sum is 338,350.', success: true });
      expect(bad.runs[0]).toMatchObject({ stop_reason: 'done', success: false });
    },
    patient(30_000),
  );
});

describe('--agent-cmd refuses what cannot apply', () => {
  it.each([
    ['an empty command', { agentCmd: ' ' }, /--agent-cmd: empty/],
    ['a task-queue scenario', { agentCmd: TINY, scenario: 'babyagi-converging' }, /task-queue scenario/],
    [
      '--reflection',
      { agentCmd: TINY, scenario: 'tiny-agent-sum-of-squares', reflection: 'final' },
      /--reflection and --context/,
    ],
  ])('%s', async (_name, flags, message) => {
    const e = await agentSweep(flags as never).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UsageError);
    expect((e as Error).message).toMatch(message);
  });
});

describe('--record and --replay through the gateway', () => {
  it(
    'records every answered call of the agent, and replays the sweep from the cassette alone, identically',
    async () => {
      const cassette = path.join(tmp, 'agent.cassette.json');
      const flags = { agentCmd: TINY, scenario: 'tiny-agent-sum-of-squares', steps: '3,10', repeat: '2' };
      const live = await agentSweep({ ...flags, record: cassette });
      const entries = (JSON.parse(fs.readFileSync(cassette, 'utf8')) as { entries: unknown[] }).entries;
      // A run at --steps 3 asks what the same seed's run at 10 asks first: one entry per distinct request.
      expect(entries).toHaveLength(live.steps.filter((s) => s.settings.limits.max_steps === 10).length);
      const again = await agentSweep({ ...flags, replay: cassette });
      const view = (r: {
        runs: Array<{
          run_id: string;
          stop_reason: string;
          steps: number;
          input_tokens: number;
          output_tokens: number;
          answer: string | null;
          success: boolean | null;
        }>;
      }) =>
        r.runs
          .map((x) => [x.run_id, x.stop_reason, x.steps, x.input_tokens, x.output_tokens, x.answer, x.success])
          .sort();
      expect(view(again)).toEqual(view(live));
      // Another seed asks what was never recorded: an error naming the cassette, not a guess.
      const other = await agentSweep({ ...flags, steps: '10', repeat: '1', seed: '99', replay: cassette });
      expect(other.runs[0]!.stop_reason).toBe('error');
      expect(other.steps[0]!.error).toMatch(/replay: .*agent\.cassette\.json has no recorded answer/);
    },
    patient(60_000),
  );
});
