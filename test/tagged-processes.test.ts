import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { killTagged } from '../src/tools/tagged-processes.ts';

const VAR = 'LOOPBENCH_TEST_TAG';

function tagged(tag: string): number[] {
  return fs
    .readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/environ`, 'latin1').includes(`${VAR}=${tag}`);
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
  expect(check()).toBe(true);
}

describe('killTagged', () => {
  it.skipIf(!fs.existsSync('/proc/self/environ'))(
    'kills every tagged process and counts only those outside the given group (members still alive are not escapes)',
    async () => {
      const tag = `t${process.pid}-${Date.now()}`;
      // A shell with one child in its group and one that left it with setsid: three tagged processes, one escaped.
      const child = spawn('/bin/sh', ['-c', 'sleep 300 & setsid sleep 300 & wait'], {
        detached: true,
        env: { ...process.env, [VAR]: tag },
        stdio: 'ignore',
      });
      const exited = new Promise((r) => child.on('exit', r));
      await until(() => tagged(tag).length === 3);
      expect(killTagged(VAR, tag, child.pid)).toBe(1);
      await exited;
      await until(() => tagged(tag).length === 0);
      // Without a group, every tagged process counts.
      expect(killTagged(VAR, tag)).toBe(0);
    },
    20_000,
  );
});
