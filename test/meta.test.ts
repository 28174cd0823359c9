// meta.json has one schema (src/results/meta.ts): loadMeta refuses a damaged file naming the file and
// the field, readMeta gives reports null instead, both keep the file's own object (extra fields and
// key order), and --resume finishes a task-queue sweep with the per-role models it was started with.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../src/contracts/errors.ts';
import { ROOT } from '../src/contracts/paths.ts';
import type { RunRecord } from '../src/contracts/records.ts';
import { loadMeta, readMeta } from '../src/results/meta.ts';
import { benchInProcess } from './helpers/cli.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-meta-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const referenceText = fs.readFileSync(path.join(ROOT, 'results', 'reference', 'meta.json'), 'utf8');
const reference = JSON.parse(referenceText);

let n = 0;
/** A results directory holding only this meta.json. */
function dirWith(meta: unknown): string {
  const dir = path.join(tmp, `d${n++}`);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'meta.json'), typeof meta === 'string' ? meta : JSON.stringify(meta, null, 2));
  return dir;
}

describe('loadMeta and readMeta', () => {
  it('read a sweep’s meta.json as it is: every field, in the file’s order', () => {
    const dir = dirWith(referenceText);
    expect(JSON.stringify(loadMeta(dir), null, 2)).toBe(referenceText.trimEnd());
    expect(readMeta(dir)).toEqual(reference);
  });

  it('a damaged meta.json: loadMeta names the file and the field, readMeta gives null', () => {
    const dir = dirWith({ ...reference, grid: { ...reference.grid, max_steps: '12' } });
    const file = path.join(dir, 'meta.json');
    expect(() => loadMeta(dir)).toThrow(`${file}: grid.max_steps: Invalid input: expected array, received string`);
    try {
      loadMeta(dir);
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).field).toBe('grid.max_steps');
    }
    expect(readMeta(dir)).toBeNull();
  });

  it('an unknown role model or a missing field is refused too', () => {
    const roles = dirWith({ ...reference, fixed: { ...reference.fixed, role_models: { critic: 'sim' } } });
    expect(() => loadMeta(roles)).toThrow(
      `${path.join(roles, 'meta.json')}: fixed.role_models: unknown field(s) 'critic'`,
    );
    const { runs_done: _, ...noRunsDone } = reference;
    expect(() => loadMeta(dirWith(noRunsDone))).toThrow(/: runs_done: missing/);
  });

  it('unknown extra fields, top level or nested, still load and are kept', () => {
    const meta = { ...reference, made_by_a_newer_version: { x: 1 }, grid: { ...reference.grid, new_dimension: [1] } };
    const loaded = loadMeta(dirWith(meta));
    expect(loaded).toEqual(meta);
  });

  it('missing or unreadable: loadMeta says which file, readMeta gives null', () => {
    const none = path.join(tmp, 'none');
    fs.mkdirSync(none);
    expect(() => loadMeta(none)).toThrow(`${path.join(none, 'meta.json')}: not found: not a results directory`);
    expect(readMeta(none)).toBeNull();
    const notJson = dirWith('{"tool": "loopbench",');
    expect(() => loadMeta(notJson)).toThrow(new RegExp(`^${path.join(notJson, 'meta.json')}: cannot read it \\(`));
    expect(readMeta(notJson)).toBeNull();
  });
});

describe('bench --resume reads meta.json strictly', () => {
  it('a missing meta.json: the same one line as before', async () => {
    const dir = path.join(tmp, 'no-meta');
    fs.mkdirSync(dir);
    const r = await benchInProcess(['--resume', dir, '-q']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`bench: ${path.join(dir, 'meta.json')}: not found: not a results directory\n`);
  });

  it('a damaged meta.json: one line naming the file and the field, nothing run', async () => {
    const dir = dirWith({ ...reference, status: 'interrupted', grid: { ...reference.grid, max_steps: ['12'] } });
    const r = await benchInProcess(['--resume', dir, '-q']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `bench: ${path.join(dir, 'meta.json')}: grid.max_steps[0]: Invalid input: expected number, received string\n`,
    );
    expect(fs.existsSync(path.join(dir, 'runs.jsonl'))).toBe(false);
  });

  it('an imported directory: refused in one line (no sweep to resume)', async () => {
    const dir = dirWith({
      ...reference,
      status: 'complete',
      imported: { format: 'atif', files: 1, skipped: 0, notes: [] },
    });
    const r = await benchInProcess(['--resume', dir, '-q']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `bench: ${dir}: made by bench import from trajectory files, not by a sweep: there is nothing to resume\n`,
    );
  });

  it('finishes a task-queue sweep with its --role-model models, and its meta.json keeps every field in order', async () => {
    const sweep = [
      '-s',
      'babyagi-queue-explosion',
      '--role-model',
      'execute=sim:babyagi-converging',
      '--max-rounds',
      '4',
      '-n',
      '2',
      '-q',
      '--no-transcripts',
    ];
    const whole = path.join(tmp, 'tq-whole');
    const part = path.join(tmp, 'tq-part');
    expect((await benchInProcess([...sweep, '-o', whole])).code).toBe(0);
    expect((await benchInProcess([...sweep, '-o', part])).code).toBe(0);
    // Keep the first run only, as an interrupted sweep would have left it.
    const runs = (f: string) => fs.readFileSync(path.join(f, 'runs.jsonl'), 'utf8').trim().split('\n');
    const kept = runs(part).slice(0, 1);
    const keptId = (JSON.parse(kept[0]!) as RunRecord).run_id;
    fs.writeFileSync(path.join(part, 'runs.jsonl'), `${kept[0]}\n`);
    const steps = fs
      .readFileSync(path.join(part, 'steps.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .filter((l) => JSON.parse(l).run_id === keptId);
    fs.writeFileSync(path.join(part, 'steps.jsonl'), `${steps.join('\n')}\n`);
    const metaFile = path.join(part, 'meta.json');
    fs.writeFileSync(
      metaFile,
      JSON.stringify(
        { ...JSON.parse(fs.readFileSync(metaFile, 'utf8')), status: 'interrupted', runs_done: 1 },
        null,
        2,
      ),
    );
    const keysBefore = Object.keys(JSON.parse(fs.readFileSync(metaFile, 'utf8')));

    const r = await benchInProcess(['--resume', part, '-q']);
    expect(r.code).toBe(0);
    const outcome = (dir: string) =>
      runs(dir)
        .map((l) => JSON.parse(l) as RunRecord)
        .map((x) => ({ id: x.run_id, role_models: x.settings.role_models, tokens: [x.input_tokens, x.output_tokens] }))
        .sort((a, b) => a.id.localeCompare(b.id));
    expect(outcome(part)).toEqual(outcome(whole));
    expect(outcome(part).every((x) => x.role_models?.execute === 'sim:babyagi-converging')).toBe(true);
    const resumed = JSON.parse(fs.readFileSync(metaFile, 'utf8'));
    expect(Object.keys(resumed)).toEqual([...keysBefore, 'resumed_at']);
    expect(resumed.fixed).toEqual(JSON.parse(fs.readFileSync(path.join(whole, 'meta.json'), 'utf8')).fixed);
  });
});
