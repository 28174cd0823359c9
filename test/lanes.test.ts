// The fast lane's two promises: every test file belongs to exactly one lane (so a new file is placed on
// purpose), and a test in the fast lane that starts another program fails, however it starts it.
import childProcess, { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAST, FULL_ONLY, SLOWEST } from './lanes.ts';
import { forbidChildProcesses, refused } from './lanes/no-child-processes.ts';

const TEST_DIR = import.meta.dirname;

describe('the test lanes', () => {
  it('list every test file once, in the fast lane or the full suite only, and no file that is not there', () => {
    const files = (fs.readdirSync(TEST_DIR, { recursive: true }) as string[])
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => f.split(path.sep).join('/'));
    const listed = [...FAST, ...Object.keys(FULL_ONLY)];
    const unlisted = files.filter((f) => !listed.includes(f));
    expect(unlisted, 'add each to FAST or FULL_ONLY in test/lanes.ts').toEqual([]);
    expect(
      listed.filter((f) => !files.includes(f)),
      'listed in test/lanes.ts but not in test/',
    ).toEqual([]);
    expect(
      listed.filter((f, i) => listed.indexOf(f) !== i),
      'listed twice in test/lanes.ts',
    ).toEqual([]);
    expect(
      Object.values(FULL_ONLY).filter((why) => !why.trim()),
      'FULL_ONLY says what each file starts',
    ).toEqual([]);
    expect(
      SLOWEST.filter((f) => !files.includes(f)),
      'SLOWEST names a file that is not in test/',
    ).toEqual([]);
  });

  it('the fast lane refuses every way of starting a program, through the module object and named imports alike, and remembers each', () => {
    const restore = forbidChildProcesses();
    const before = refused.length;
    try {
      const attempts: Array<() => unknown> = [
        () => spawn('true'),
        () => execFileSync('true'),
        () => childProcess.spawnSync('true'),
        () => childProcess.exec('true'),
        () => childProcess.execSync('true'),
        () => childProcess.execFile('true'),
        () => childProcess.fork('true'),
      ];
      for (const attempt of attempts)
        expect(attempt).toThrow(
          /the fast lane starts no other program; list this test file under FULL_ONLY in test\/lanes\.ts/,
        );
      expect(refused.slice(before)).toEqual(
        ['spawn', 'execFileSync', 'spawnSync', 'exec', 'execSync', 'execFile', 'fork'].map(
          (n) => `child_process.${n}("true")`,
        ),
      );
      // The one exception: meta.json's commit, asked of git once per process.
      expect(execFileSync('git', ['rev-parse', 'HEAD'], { cwd: TEST_DIR }).toString()).toMatch(/^[0-9a-f]{40}\n$/);
    } finally {
      refused.splice(before);
      restore();
    }
  });
});
