// -q on every command that prints: report and diff take it too (scripts pass it everywhere).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchInProcess, fixture } from './helpers/cli.ts';

let tmp: string;
const sweep = (name: string, steps: string) =>
  benchInProcess([
    '-s',
    fixture('quick-sum.yaml'),
    '-n',
    '2',
    '--steps',
    steps,
    '-q',
    '--no-transcripts',
    '-o',
    path.join(tmp, name),
  ]);
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-quiet-'));
  expect((await sweep('a', '8')).code).toBe(0);
  expect((await sweep('b', '8')).code).toBe(0);
  expect((await sweep('c', '4')).code).toBe(0);
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('-q', () => {
  it('bench report -q rebuilds the reports and prints nothing', async () => {
    const dir = path.join(tmp, 'a');
    fs.rmSync(path.join(dir, 'summary.md'));
    const r = await benchInProcess(['report', dir, '-q']);
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(fs.existsSync(path.join(dir, 'summary.md'))).toBe(true);
    expect((await benchInProcess(['report', dir])).stdout).toContain('configuration');
  });

  it('bench diff -q prints nothing, writes --md, and still exits 2 on sweeps that differ in what is not allowed', async () => {
    const md = path.join(tmp, 'diff.md');
    const r = await benchInProcess(['diff', path.join(tmp, 'a'), path.join(tmp, 'b'), '-q', '--md', md]);
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(fs.readFileSync(md, 'utf8')).toContain('quick-sum');
    const refused = await benchInProcess(['diff', path.join(tmp, 'a'), path.join(tmp, 'c'), '-q']);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
  });
});
