// Nothing a user gives loopbench can hang it: a check pattern runs in linear time, every input file
// is a regular file under a size cap, and an impossible --out fails before any work.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readJsonl } from '../src/results/jsonl.ts';
import type { RunRecord } from '../src/contracts/records.ts';
import { checkAnswer } from '../src/scenario/check.ts';
import { Cassette } from '../src/models/cassette.ts';
import { loadBaseline } from '../src/gate/baseline.ts';
import { readInputFile } from '../src/contracts/input-file.ts';
import { bench, benchInProcess, fixture } from './helpers/cli.ts';
import { systemTool } from './helpers/system-tools.ts';
import { patient } from './helpers/patient.ts';

let tmp: string;
beforeAll(() => void (tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-contain-'))));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('check.pattern', () => {
  it('matches nested quantifiers against a long answer at once (a backtracking engine would take ~2^40 steps here)', () => {
    const answer = `${'a'.repeat(40)}b`;
    expect(checkAnswer({ pattern: '^(a+)+$' }, answer)).toBe(false);
    expect(checkAnswer({ pattern: '(a|aa)*c' }, 'a'.repeat(100_000))).toBe(false);
    expect(checkAnswer({ pattern: '(a+)+b' }, answer)).toBe(true);
  });

  it('keeps RegExp.test semantics for ordinary patterns', () => {
    expect(checkAnswer({ pattern: '[Rr]eport' }, 'final report: ok')).toBe(true);
    expect(checkAnswer({ pattern: '^\\d{3}$' }, 'x123')).toBe(false);
  });
});

describe('input files are regular files under a cap', () => {
  it('a budgets prompt file that is a device fails at once, naming the field', async () => {
    const budgets = path.join(tmp, 'budgets.yaml');
    fs.writeFileSync(
      budgets,
      'scenarios:\n  - scenario: perfectionist\n    system_file: /dev/zero\n    assertions: {}\n',
    );
    const r = await benchInProcess(['check', budgets, '-q', '-o', path.join(tmp, 'never')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`bench: ${budgets}: scenarios[0].system_file: /dev/zero is not a regular file\n`);
  });

  it('a cassette or baseline that is a device, or a file without a size (/proc), is bounded', async () => {
    expect(() => Cassette.load('/dev/zero')).toThrow('/dev/zero: cannot read cassette (a device, not a regular file)');
    await expect(loadBaseline('/dev/zero')).rejects.toThrow(
      '--baseline /dev/zero: not a results directory or a baseline JSON file (a device, not a regular file)',
    );
    // /proc files report size 0 and are read up to the cap, never without end.
    expect(readInputFile('/proc/self/status', 4096)).toContain('Pid:');
    expect(() => readInputFile('/proc/self/smaps', 16)).toThrow('larger than');
  });

  it('a FIFO fails at once instead of blocking the open', () => {
    const fifo = path.join(tmp, 'scenario.fifo');
    execFileSync('mkfifo', [fifo]);
    expect(() => readInputFile(fifo)).toThrow(`${fifo}: cannot read file (a pipe, not a regular file)`);
  });
});

describe('--out', { timeout: patient(60_000) }, () => {
  const sweep = ['-s', fixture('quick-sum.yaml'), '-n', '1', '-q'];

  it('through the real CLI: /proc/1/forbidden is a usage error at once, exit 2 (it used to spin forever)', async () => {
    const r = await bench([...sweep, '-o', '/proc/1/forbidden/results']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'bench: --out /proc/1/forbidden/results: cannot create /proc/1/forbidden: this file system does not allow creating directories here (ENOENT)\n',
    );
  });

  // A read-only mount needs a mount namespace: bubblewrap (installed by .ci/run) gives one.
  it.skipIf(!systemTool('bubblewrap', 'containment: a read-only --out under a bubblewrap mount'))(
    'a read-only file system is reported as such, not as ENOENT',
    async () => {
      const ro = path.join(tmp, 'ro');
      fs.mkdirSync(ro);
      let out = '';
      try {
        execFileSync(
          'bwrap',
          [
            '--dev-bind',
            '/',
            '/',
            '--ro-bind',
            ro,
            ro,
            process.execPath,
            path.resolve('bin/bench.js'),
            ...sweep,
            '-o',
            path.join(ro, 'out'),
          ],
          { encoding: 'utf8', stdio: 'pipe' },
        );
      } catch (e) {
        out = String((e as { stderr: string }).stderr);
        expect((e as { status: number }).status).toBe(2);
      }
      expect(out).toBe(
        `bench: --out ${path.join(ro, 'out')}: cannot create ${path.join(ro, 'out')}: read-only file system (EROFS)\n`,
      );
    },
  );
});

describe('a disk that fills up mid-sweep', { timeout: patient(120_000) }, () => {
  const sweep = ['-s', fixture('quick-sum.yaml'), '-n', '30', '-j', '2', '-q', '--no-transcripts'];
  const runsOf = async (dir: string) =>
    (await readJsonl<RunRecord>(path.join(dir, 'runs.jsonl'))).records
      .map(({ started_at: _s, finished_at: _f, ...r }) => r)
      .sort((a, b) => a.run_id.localeCompare(b.run_id));

  it('ends the sweep with status failed and the reason; the records stay whole; --resume finishes it as if nothing happened', async () => {
    const reference = path.join(tmp, 'full-reference');
    expect((await benchInProcess([...sweep, '-o', reference])).code).toBe(0);

    // The record writes start failing as on a full disk (meta.json, written otherwise, still fits).
    const dir = path.join(tmp, 'full');
    const real = fs.writeSync;
    let writes = 0;
    const full = vi.spyOn(fs, 'writeSync').mockImplementation(((...a: Parameters<typeof fs.writeSync>) => {
      if (++writes > 12) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      return (real as (...x: unknown[]) => number)(...a);
    }) as typeof fs.writeSync);
    let r: Awaited<ReturnType<typeof benchInProcess>>;
    try {
      r = await benchInProcess([...sweep, '-o', dir]);
    } finally {
      full.mockRestore();
    }
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `bench: the sweep stopped: ENOSPC: no space left on device, write (${dir}: status failed; the records written so far are kept; once fixed, finish it with: bench --resume ${dir})`,
    );
    const meta = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8'));
    expect(meta.status).toBe('failed');
    expect(meta.failure).toBe('ENOSPC: no space left on device, write');
    expect(meta.runs_done).toBeLessThan(30);

    const resumed = await benchInProcess(['--resume', dir, '-q']);
    expect(resumed.code).toBe(0);
    const after = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8'));
    expect(after.status).toBe('complete');
    expect(after.failure).toBeUndefined();
    expect(await runsOf(dir)).toEqual(await runsOf(reference));
  });
});
