// `bench report` on directories that are not a whole sweep: only steps.jsonl, lines that are JSON
// but not records of ours, and a flag the command does not have.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchInProcess } from './helpers/cli.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-report-inputs-'));
const sweep = path.join(tmp, 'sweep');
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
beforeAll(async () => {
  const r = await benchInProcess(['-s', 'seed-calibrated', '--steps', '4', '--repeat', '2', '-q', '--no-transcripts', '-o', sweep]);
  expect(r.code, r.stderr).toBe(0);
});

/** A directory holding only the given files, copied or written. */
function dirWith(name: string, files: Record<string, string>): string {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir);
  for (const [f, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, f), text);
  return dir;
}
const read = (f: string) => fs.readFileSync(path.join(sweep, f), 'utf8');

describe('bench report on partial or foreign records', () => {
  it('only steps.jsonl: builds the per-step reports and says the run tables are empty', async () => {
    const dir = dirWith('only-steps', { 'steps.jsonl': read('steps.jsonl') });
    const r = await benchInProcess(['report', dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('has no runs.jsonl: built the per-step reports');
    expect(fs.readFileSync(path.join(dir, 'steps.csv'), 'utf8').trim().split('\n')).toHaveLength(1 + 8);
    expect(fs.readFileSync(path.join(dir, 'fit.csv'), 'utf8')).toContain('seed-calibrated');
  });

  it('step lines without settings: a one-line error naming the file, line and field, exit 2', async () => {
    const lines = read('steps.jsonl').trim().split('\n');
    const bare = lines.map((l, i) => (i === 2 ? JSON.stringify({ ...JSON.parse(l), settings: undefined }) : l));
    const dir = dirWith('no-settings', { 'steps.jsonl': `${bare.join('\n')}\n` });
    const r = await benchInProcess(['report', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('bench: steps.jsonl line 3: not a step record (no settings)');
  });

  it('a run line that is not a run record: the same, for runs.jsonl', async () => {
    const dir = dirWith('foreign-run', { 'steps.jsonl': read('steps.jsonl'), 'runs.jsonl': `${read('runs.jsonl')}\n{"run_id":"x"}\n` });
    const r = await benchInProcess(['report', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('bench: runs.jsonl line 4: not a run record (no config_id)');
  });

  it("a flag report does not have points to report's own help", async () => {
    const r = await benchInProcess(['report', sweep, '--steps', '4']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe("bench: unknown option '--steps' (run bench report --help for usage)");
  });
});
