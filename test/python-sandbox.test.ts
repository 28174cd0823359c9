// The run_python sandbox with real python: an infinite loop, forks, a huge print, a memory hog,
// files written inside and outside its directory, and the environment it sees.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_OUTPUT_BYTES } from '../src/tools/python-sandbox.ts';
import { runPython, RUN_PYTHON_DEFAULTS, type RunPythonOptions } from '../src/tools/run-python.ts';

const opts = (o: Partial<RunPythonOptions> = {}): RunPythonOptions => ({ ...RUN_PYTHON_DEFAULTS, ...o });

/** Running means not gone and not a zombie (a killed orphan may wait for a reaper as Z). */
function running(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) [ZX]/.test(stat);
  } catch {
    return false;
  }
}

const scratch: string[] = [];
afterEach(() => {
  for (const d of scratch.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('run_python sandbox', () => {
  it('kills an infinite loop at the timeout', async () => {
    const out = await runPython('print("started", flush=True)\nwhile True: pass', opts({ timeoutS: 1 }));
    expect(out).toBe('Error: timed out after 1 s; process killed\nstarted\n');
  });

  it('kills the whole process group at the timeout, forked children included', async () => {
    const code = ['import os, time', 'pid = os.fork()', 'if pid == 0:', '    while True: time.sleep(0.1)', 'print(pid, flush=True)', 'while True: time.sleep(0.1)'].join('\n');
    const out = await runPython(code, opts({ timeoutS: 1 }));
    const pid = Number(/\n(\d+)\n/.exec(out)![1]);
    expect(out).toMatch(/^Error: timed out after 1 s/);
    await expect.poll(() => running(pid)).toBe(false);
  });

  it('kills a forked child that outlives its parent and lets go of the pipes', async () => {
    // The child closes stdout/stderr, so nothing waits on it: only the group kill at exit stops it.
    const code = ['import os, time', 'pid = os.fork()', 'if pid == 0:', '    os.close(1); os.close(2)', '    time.sleep(120)', '    os._exit(0)', 'print(pid)'].join('\n');
    const out = await runPython(code, opts({ timeoutS: 60 }));
    const pid = Number(out.trim());
    expect(pid).toBeGreaterThan(0);
    await expect.poll(() => running(pid)).toBe(false);
  });

  it('stops a program printing without end once it has printed the cap, keeping only the tail', async () => {
    const out = await runPython('import sys\nwhile True: sys.stdout.write("x" * 65536)', opts({ timeoutS: 120, maxOutputChars: 500 }));
    expect(out.split('\n')[0]).toBe(`Error: output exceeded ${MAX_OUTPUT_BYTES / 1024 / 1024} MiB; process killed`);
    expect(out.split('\n')[1]).toBe('x'.repeat(500));
  });

  it('returns only the last max_output_chars of a large but finite print', async () => {
    const out = await runPython('print("a" * 1_000_000 + "END")', opts({ maxOutputChars: 100 }));
    expect(out).toBe(`${'a'.repeat(96)}END\n`);
  });

  it('enforces the memory limit', async () => {
    const hog = 'try:\n    b = bytearray(1024 ** 3)\n    print("allocated")\nexcept MemoryError:\n    print("MemoryError")';
    expect(await runPython(hog, opts({ maxMemoryMb: 256 }))).toBe('MemoryError\n');
    expect(await runPython('b = bytearray(50 * 1024 ** 2); print("ok")', opts({ maxMemoryMb: 256 }))).toBe('ok\n');
  });

  it('runs in a fresh temporary directory that is removed afterwards, TMPDIR included', async () => {
    const code = 'import os, tempfile\nopen("left-behind.txt", "w").write("x")\nprint(os.getcwd())\nprint(tempfile.gettempdir())';
    const [cwd, tmp] = (await runPython(code, opts())).trim().split('\n');
    expect(path.dirname(cwd!)).toBe(fs.realpathSync(os.tmpdir()));
    expect(path.basename(cwd!)).toMatch(/^loopbench-py-/);
    expect(tmp).toBe(cwd);
    expect(fs.existsSync(cwd!)).toBe(false);
    const [again] = (await runPython('import os; print(os.getcwd())', opts())).trim().split('\n');
    expect(again).not.toBe(cwd);
  });

  it('does NOT stop a file written outside its directory (documented: not a security boundary)', async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-outside-'));
    scratch.push(outside);
    const target = path.join(outside, 'escaped.txt');
    await runPython(`open(${JSON.stringify(target)}, "w").write("written")`, opts());
    expect(fs.readFileSync(target, 'utf8')).toBe('written');
  });

  it('passes no variable whose name matches KEY, TOKEN, SECRET or PASSWORD to python', async () => {
    const fake = {
      OPENAI_API_KEY: 'sk-fake-openai-0123456789',
      GITHUB_TOKEN: 'ghp_fake_token_value',
      MY_SECRET: 'fake-secret-value',
      DB_PASSWORD: 'fake-password-value',
      aws_secret_access_key: 'fake-lower-case-secret',
    };
    const saved = { ...process.env };
    Object.assign(process.env, fake, { LOOPBENCH_HARMLESS: 'visible' });
    try {
      const out = await runPython('import os, json; print(json.dumps(dict(os.environ)))', opts({ maxOutputChars: 1_000_000 }));
      const env = JSON.parse(out) as Record<string, string>;
      expect(env.LOOPBENCH_HARMLESS).toBe('visible');
      for (const [name, value] of Object.entries(fake)) {
        expect(Object.keys(env)).not.toContain(name);
        expect(out).not.toContain(value);
      }
      expect(Object.keys(env).filter((k) => /KEY|TOKEN|SECRET|PASSWORD/i.test(k))).toEqual([]);
    } finally {
      process.env = saved;
    }
  });

  it('does not start when the sweep is already interrupted, and kills a running program on interrupt', async () => {
    const marker = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-marker-'));
    scratch.push(marker);
    const flag = path.join(marker, 'started');
    const aborted = AbortSignal.abort();
    expect(await runPython(`open(${JSON.stringify(flag)}, "w")`, opts(), aborted)).toBe('Error: interrupted before run_python started');
    expect(fs.existsSync(flag)).toBe(false);

    const ctl = new AbortController();
    const pending = runPython(`open(${JSON.stringify(flag)}, "w").close()\nimport time\ntime.sleep(120)`, opts({ timeoutS: 300 }), ctl.signal);
    await expect.poll(() => fs.existsSync(flag), { timeout: 10_000 }).toBe(true);
    ctl.abort();
    expect(await pending).toBe('Error: interrupted; process killed');
  });
});
