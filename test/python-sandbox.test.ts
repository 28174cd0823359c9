// The run_python sandbox with real python: an infinite loop, forks, a child that leaves the session
// holding the pipes, a huge print, a memory hog, files written inside and outside its directory, the
// network, and the environment it sees. Every case runs without bubblewrap, and again under it when
// it works on this machine (.ci/run installs it).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { describeContainment, type Containment } from '../src/tools/containment.ts';
import { bench } from './helpers/cli.ts';
import { systemTool } from './helpers/system-tools.ts';
import { sleepRunning, uniqueSleep } from './helpers/processes.ts';
import { ToolRegistry } from '../src/tools/registry.ts';
import { ScenarioSchema } from '../src/scenario/schema.ts';
import { MAX_OUTPUT_BYTES } from '../src/tools/python-sandbox.ts';
import { runPython, RUN_PYTHON_DEFAULTS, type RunPythonOptions } from '../src/tools/run-python.ts';
import { findPython3 } from '../src/tools/python-path.ts';
import { patient } from './helpers/patient.ts';

/** Waits until a run_python working directory holds `name` (the code got that far). */
function startedFlag(name: string): () => boolean {
  return () =>
    fs
      .readdirSync(os.tmpdir())
      .some((d) => d.startsWith('loopbench-py-') && fs.existsSync(path.join(os.tmpdir(), d, name)));
}

// Every case runs in a process group; under bubblewrap too where it works here.
const CONTAINMENTS: Containment[] = systemTool(
  'bubblewrap',
  'python-sandbox: the cases under bubblewrap (they run in a process group only)',
)
  ? ['process-group', 'bwrap']
  : ['process-group'];

const scratch: string[] = [];
afterEach(() => {
  for (const d of scratch.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe.each(CONTAINMENTS)('run_python sandbox (%s)', (containment) => {
  const opts = (o: Partial<RunPythonOptions> = {}): RunPythonOptions => ({ ...RUN_PYTHON_DEFAULTS, containment, ...o });

  it('kills an infinite loop at the timeout', async () => {
    const out = await runPython('print("started", flush=True)\nwhile True: pass', opts({ timeoutS: 1 }));
    expect(out).toBe('Error: timed out after 1 s; process killed\nstarted\n');
  });

  it('kills the whole process group at the timeout, forked children included', async () => {
    const sleep = uniqueSleep();
    const code = [
      'import subprocess, time',
      `subprocess.Popen(["sleep", "${sleep}"])`,
      'print("forked", flush=True)',
      'while True: time.sleep(0.1)',
    ].join('\n');
    const out = await runPython(code, opts({ timeoutS: 1 }));
    expect(out).toBe('Error: timed out after 1 s; process killed\nforked\n');
    await expect.poll(() => sleepRunning(sleep)).toBe(false);
  });

  it('kills a forked child that outlives its parent and lets go of the pipes', async () => {
    // The child closes stdout/stderr, so nothing waits on it: only the kill at exit stops it.
    const sleep = uniqueSleep();
    const code = [
      'import subprocess',
      `subprocess.Popen(["sleep", "${sleep}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)`,
      'print("done")',
    ].join('\n');
    expect(await runPython(code, opts({ timeoutS: 60 }))).toBe('done\n');
    await expect.poll(() => sleepRunning(sleep)).toBe(false);
  });

  // A hostile child: a new session (out of the process group) that keeps the output pipe open.
  // The call used to wait for it (a 5 s timeout took 93 s) and it survived the call.
  it('bounds the timeout whatever the code starts: a setsid child holding stdout is killed and not waited for', async () => {
    const sleep = uniqueSleep();
    const code = [
      'import subprocess, sys, time',
      `subprocess.Popen(["setsid", "sleep", "${sleep}"], stdout=sys.stdout, stderr=sys.stderr)`,
      'print("started", flush=True)',
      'while True: time.sleep(0.1)',
    ].join('\n');
    // Not waited for: the sleep alone would hold the call for over a day, far past the test's timeout.
    const out = await runPython(code, opts({ timeoutS: 1 }));
    expect(out).toBe('Error: timed out after 1 s; process killed\nstarted\n');
    await expect.poll(() => sleepRunning(sleep)).toBe(false);
  });

  it('returns when the interpreter exits even if a setsid child still holds the pipes, and ends that child', async () => {
    const sleep = uniqueSleep();
    const code = [
      'import subprocess, sys',
      `subprocess.Popen(["setsid", "sleep", "${sleep}"], stdout=sys.stdout, stderr=sys.stderr)`,
      'print("bye")',
    ].join('\n');
    expect(await runPython(code, opts({ timeoutS: 600 }))).toBe('bye\n');
    await expect.poll(() => sleepRunning(sleep)).toBe(false);
  });

  it('stops a program printing without end once it has printed the cap, keeping only the tail', async () => {
    const out = await runPython(
      'import sys\nwhile True: sys.stdout.write("x" * 65536)',
      opts({ timeoutS: 120, maxOutputChars: 500 }),
    );
    expect(out.split('\n')[0]).toBe(`Error: output exceeded ${MAX_OUTPUT_BYTES / 1024 / 1024} MiB; process killed`);
    expect(out.split('\n')[1]).toBe('x'.repeat(500));
  });

  it('returns only the last max_output_chars of a large but finite print', async () => {
    const out = await runPython('print("a" * 1_000_000 + "END")', opts({ maxOutputChars: 100 }));
    expect(out).toBe(`${'a'.repeat(96)}END\n`);
  });

  it('enforces the memory limit', async () => {
    const hog =
      'try:\n    b = bytearray(1024 ** 3)\n    print("allocated")\nexcept MemoryError:\n    print("MemoryError")';
    expect(await runPython(hog, opts({ maxMemoryMb: 256 }))).toBe('MemoryError\n');
    expect(await runPython('b = bytearray(50 * 1024 ** 2); print("ok")', opts({ maxMemoryMb: 256 }))).toBe('ok\n');
  });

  it('runs in a fresh temporary directory that is removed afterwards, TMPDIR included', async () => {
    const code =
      'import os, tempfile\nopen("left-behind.txt", "w").write("x")\nprint(os.getcwd())\nprint(tempfile.gettempdir())';
    const [cwd, tmp] = (await runPython(code, opts())).trim().split('\n');
    expect(path.dirname(cwd!)).toBe(fs.realpathSync(os.tmpdir()));
    expect(path.basename(cwd!)).toMatch(/^loopbench-py-/);
    expect(tmp).toBe(cwd);
    expect(fs.existsSync(cwd!)).toBe(false);
    const [again] = (await runPython('import os; print(os.getcwd())', opts())).trim().split('\n');
    expect(again).not.toBe(cwd);
  });

  it(
    containment === 'bwrap'
      ? 'cannot write outside its directory'
      : 'does NOT stop a file written outside its directory (documented: no bubblewrap, no file system isolation)',
    async () => {
      const outside = fs.mkdtempSync(path.join(os.homedir(), '.loopbench-outside-'));
      scratch.push(outside);
      const target = path.join(outside, 'escaped.txt');
      const out = await runPython(`open(${JSON.stringify(target)}, "w").write("written")\nprint("wrote")`, opts());
      if (containment === 'bwrap') {
        expect(out).toMatch(/OSError: \[Errno 30\] Read-only file system/);
        expect(fs.existsSync(target)).toBe(false);
      } else expect(fs.readFileSync(target, 'utf8')).toBe('written');
    },
  );

  it(
    containment === 'bwrap'
      ? 'has no network: a server on 127.0.0.1 of this machine is unreachable'
      : 'has the network (documented: no bubblewrap, no network isolation)',
    async () => {
      const server = http.createServer((_req, res) => res.end('reached'));
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const port = (server.address() as AddressInfo).port;
      try {
        const code = `import urllib.request\ntry:\n    print(urllib.request.urlopen("http://127.0.0.1:${port}/", timeout=5).read().decode())\nexcept OSError as e:\n    print("blocked", type(e).__name__)`;
        const out = await runPython(code, opts({ timeoutS: 30 }));
        expect(out).toBe(containment === 'bwrap' ? 'blocked URLError\n' : 'reached\n');
      } finally {
        server.close();
      }
    },
  );

  it('passes only allow-listed variables (and the ones the tool declares) to python', async () => {
    const secrets = {
      OPENAI_API_KEY: 'sk-fake-openai-0123456789',
      GITHUB_TOKEN: 'ghp_fake_token_value',
      DATABASE_URL: 'postgres://admin:hunter2-db@db.internal/prod',
      GH_PAT: 'fake-personal-access-token',
      OPENAI_BASE_URL: 'https://user:fake-proxy-pass@proxy.internal/v1',
      aws_secret_access_key: 'fake-lower-case-secret',
    };
    const saved = { ...process.env };
    Object.assign(process.env, secrets, {
      LANG: 'C.UTF-8',
      LOOPBENCH_DECLARED: 'visible',
      LOOPBENCH_UNDECLARED: 'hidden',
    });
    try {
      const out = await runPython(
        'import os, json; print(json.dumps(dict(os.environ)))',
        opts({ maxOutputChars: 1_000_000, env: ['LOOPBENCH_DECLARED'] }),
      );
      const env = JSON.parse(out) as Record<string, string>;
      expect(env.LANG).toBe('C.UTF-8');
      expect(env.LOOPBENCH_DECLARED).toBe('visible');
      expect(env.LOOPBENCH_UNDECLARED).toBeUndefined();
      for (const [name, value] of Object.entries(secrets)) {
        expect(Object.keys(env)).not.toContain(name);
        expect(out).not.toContain(value);
      }
    } finally {
      process.env = saved;
    }
  });

  it('does not start when the sweep is already interrupted, and kills a running program on interrupt', async () => {
    const marker = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-marker-'));
    scratch.push(marker);
    const flag = path.join(marker, 'started');
    const aborted = AbortSignal.abort();
    expect(await runPython(`open(${JSON.stringify(flag)}, "w")`, opts(), aborted)).toBe(
      'Error: interrupted before run_python started',
    );
    expect(fs.existsSync(flag)).toBe(false);

    const ctl = new AbortController();
    const name = `started-${uniqueSleep()}`;
    const pending = runPython(
      `open(${JSON.stringify(name)}, "w").close()\nimport time\ntime.sleep(120)`,
      opts({ timeoutS: 300 }),
      ctl.signal,
    );
    await expect.poll(startedFlag(name)).toBe(true);
    ctl.abort();
    expect(await pending).toBe('Error: interrupted; process killed');
  });
});

describe('the python3 run_python starts', () => {
  it('is the file PATH names when it is a program, and the interpreter a shim on PATH starts when it is a script', () => {
    const real = findPython3().interpreter;
    expect(real, 'python3 on PATH').toBeTruthy();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-python3-'));
    scratch.push(dir);
    const [program, shim, empty] = ['program', 'shim', 'empty'].map((d) => path.join(dir, d)) as [
      string,
      string,
      string,
    ];
    for (const d of [program, shim, empty]) fs.mkdirSync(d);
    fs.symlinkSync(real!, path.join(program, 'python3'));
    // A version manager's shim: a script that starts the interpreter (it writes a file each time it runs).
    const ran = path.join(dir, 'shim-ran');
    fs.writeFileSync(path.join(shim, 'python3'), `#!/bin/sh\necho >> '${ran}'\nexec '${real}' "$@"\n`, { mode: 0o755 });
    // Not started to find out: found as the link, the path absolute (PATH entries may be relative).
    expect(findPython3(`${empty}${path.delimiter}${path.relative(process.cwd(), program)}`)).toEqual({
      onPath: path.join(program, 'python3'),
      interpreter: path.join(program, 'python3'),
    });
    const behindShim = findPython3(`${shim}${path.delimiter}${program}`);
    expect(behindShim.onPath).toBe(path.join(shim, 'python3'));
    expect(fs.realpathSync(behindShim.interpreter!)).toBe(fs.realpathSync(real!));
    expect(fs.readFileSync(ran, 'utf8')).toBe('\n');
    // A shim that cannot start python: no interpreter (run_python then runs `python3`, which says why).
    fs.writeFileSync(path.join(shim, 'python3'), '#!/bin/sh\nexit 3\n', { mode: 0o755 });
    expect(findPython3(shim)).toEqual({ onPath: path.join(shim, 'python3'), interpreter: null });
    // Nor one that never answers: it is given up on, not waited for.
    fs.writeFileSync(path.join(shim, 'python3'), '#!/bin/sh\nexec sleep 600\n', { mode: 0o755 });
    expect(findPython3(shim, 300)).toEqual({ onPath: path.join(shim, 'python3'), interpreter: null });
  });
});

describe('a scenario declaring env: for run_python', () => {
  const scenario = (env: string) =>
    ScenarioSchema.safeParse({
      id: 'x',
      description: 'd',
      system: 's',
      goal: 'g',
      tools: [{ name: 'run_python', kind: 'python', env: [env] }],
      profile: 'tiny-agent',
    });

  it('passes the declared variable, and only it, through the registry to python', async () => {
    const parsed = scenario('LOOPBENCH_DECLARED_VIA_SCENARIO');
    expect(parsed.success).toBe(true);
    if (!parsed.success || parsed.data.agent !== 'react') return;
    const tool = ToolRegistry.fromDecls(parsed.data.tools).get('run_python')!;
    const saved = { ...process.env };
    Object.assign(process.env, { LOOPBENCH_DECLARED_VIA_SCENARIO: 'seen', DATABASE_URL: 'postgres://u:p@h/db' });
    try {
      const out = await tool.run({
        code: 'import os; print(os.environ.get("LOOPBENCH_DECLARED_VIA_SCENARIO"), os.environ.get("DATABASE_URL"))',
      });
      expect(out).toBe('seen None\n');
    } finally {
      process.env = saved;
    }
  });

  it('refuses a name that is not a variable name', () => {
    const parsed = scenario('NOT A NAME');
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]!.path).toEqual(['tools', 0, 'env', 0]);
  });
});

describe('bench run and the sandbox in force', { timeout: patient(120_000) }, () => {
  it('says once which protections are in force when the sweep runs run_python (and not with -q)', async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-notice-'));
    scratch.push(out);
    const loud = await bench(['-s', 'tiny-agent-sum-of-squares', '-n', '2', '-o', path.join(out, 'a')]);
    expect(loud.code).toBe(0);
    expect(loud.stderr.split('\n').filter((l) => l.includes('run_python runs'))).toEqual([
      `bench: ${describeContainment()}`,
    ]);
    const quiet = await bench(['-s', 'tiny-agent-sum-of-squares', '-n', '1', '-q', '-o', path.join(out, 'b')]);
    expect(quiet.stderr).not.toContain('run_python runs');
  });
});
