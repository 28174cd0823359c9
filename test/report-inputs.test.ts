// `bench report` on directories that are not a whole sweep: only steps.jsonl, lines that are JSON
// but not records of ours, and a flag the command does not have.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasRecords } from '../src/results/results-dir.ts';
import { benchInProcess } from './helpers/cli.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-report-inputs-'));
const sweep = path.join(tmp, 'sweep');
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
beforeAll(async () => {
  const r = await benchInProcess([
    '-s',
    'seed-calibrated',
    '--steps',
    '4',
    '--repeat',
    '2',
    '-q',
    '--no-transcripts',
    '-o',
    sweep,
  ]);
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
    const dir = dirWith('foreign-run', {
      'steps.jsonl': read('steps.jsonl'),
      'runs.jsonl': `${read('runs.jsonl')}\n{"run_id":"x"}\n`,
    });
    const r = await benchInProcess(['report', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('bench: runs.jsonl line 4: not a run record (no config_id)');
  });

  it('a run record with a figure that is not one (negative cost, a number as a string, …) is an error naming file, line and field, not read as is', async () => {
    const [first, ...rest] = read('runs.jsonl').trim().split('\n');
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ cost_usd: -0.5 }, 'cost_usd is -0.5, expected a number ≥ 0'],
      [{ input_tokens: '500' }, 'input_tokens is "500" (a string), expected a whole number ≥ 0'],
      [{ steps: 2.5 }, 'steps is 2.5, expected a whole number ≥ 0'],
      [{ cache_write_tokens: -3 }, 'cache_write_tokens is -3, expected a whole number ≥ 0, or absent'],
      [{ success: 'yes' }, 'success is "yes" (a string), expected true, false or null'],
      [{ stop_reason: 'bored' }, 'stop_reason is "bored" (a string), expected one of done, max_steps'],
    ];
    for (const [bad, says] of cases) {
      const name = `bad-${Object.keys(bad)[0]}`;
      const dir = dirWith(name, {
        'steps.jsonl': read('steps.jsonl'),
        'runs.jsonl': [first, JSON.stringify({ ...JSON.parse(rest[0]!), ...bad }), ...rest.slice(1)].join('\n') + '\n',
      });
      for (const args of [
        ['report', dir],
        ['diff', sweep, dir],
      ]) {
        // diff needs a meta.json: the sweep's own.
        if (args[0] === 'diff') fs.copyFileSync(path.join(sweep, 'meta.json'), path.join(dir, 'meta.json'));
        const r = await benchInProcess(args);
        expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
        expect(r.stderr).toContain(`bench: runs.jsonl line 2: ${says}`);
      }
    }
  });

  it('a run recorded twice counts once, and report and diff say so', async () => {
    const runs = read('runs.jsonl');
    const dir = dirWith('twice', {
      'steps.jsonl': read('steps.jsonl'),
      'runs.jsonl': runs + runs,
      'meta.json': read('meta.json'),
    });
    const r = await benchInProcess(['report', dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      'bench: runs.jsonl: 2 run record(s) repeat a run id already read and were not counted (line 3 repeats line 1, line 4 repeats line 2)',
    );
    const summary = fs.readFileSync(path.join(dir, 'summary.csv'), 'utf8').split('\n');
    expect(summary[1]!.split(',')[summary[0]!.split(',').indexOf('runs')]).toBe('2');
    expect(fs.readFileSync(path.join(dir, 'summary.md'), 'utf8')).toContain(
      '> 2 run record(s) in runs.jsonl repeat a run id already read and were not counted.',
    );
    const csv = path.join(tmp, 'twice-diff.csv');
    const d = await benchInProcess(['diff', sweep, dir, '--csv', csv]);
    expect(d.code, d.stderr).toBe(0);
    expect(d.stderr).toContain(`bench: ${path.join(dir, 'runs.jsonl')}: 2 run record(s) repeat a run id`);
    // B counts its 2 runs once each: the same sweep as A.
    const rows = fs
      .readFileSync(csv, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','));
    expect(rows.map((r) => [r[3], r[4], Number(r[7])])).toEqual(rows.map(() => ['2', '2', 0]));
  });

  it("bench merge checks the shards' records the same way (each run against the sum of its steps too), and refuses a run recorded twice", async () => {
    const shards = [1, 2].map((i) => path.join(tmp, `shard${i}`));
    for (const [i, s] of shards.entries()) {
      const r = await benchInProcess([
        '-s',
        'seed-calibrated',
        '--steps',
        '4',
        '--repeat',
        '2',
        '-q',
        '--no-transcripts',
        '--shard',
        `${i + 1}/2`,
        '-o',
        s,
      ]);
      expect(r.code, r.stderr).toBe(0);
    }
    const runs1 = path.join(shards[0]!, 'runs.jsonl');
    const good = fs.readFileSync(runs1, 'utf8');
    const [line] = good.trim().split('\n');
    const merge = (to: string) => benchInProcess(['merge', ...shards, '-o', path.join(tmp, to)]);
    fs.writeFileSync(runs1, `${JSON.stringify({ ...JSON.parse(line!), cost_usd: '0.01' })}\n`);
    let r = await merge('merged-bad');
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      `bench: ${runs1} line 1: cost_usd is "0.01" (a string), expected a number ≥ 0 (the run record is not read as it is)`,
    );
    fs.writeFileSync(runs1, `${good}${line}\n`);
    r = await merge('merged-twice');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/run seed-calibrated\S* is recorded twice \(lines 1 and 2\)/);
    // A record that is not the sum of its steps: refused as bench report refuses it, named by the shard's file and line.
    const record = JSON.parse(line!);
    const edited = record.cost_usd + 0.5;
    fs.writeFileSync(runs1, good.replace(line!, JSON.stringify({ ...record, cost_usd: edited })));
    r = await merge('merged-unsummed');
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      `bench: ${runs1} line 1: cost_usd is ${edited}, but the run's ${record.calls} step record(s) in steps.jsonl add up to ${record.cost_usd} (a run record is the sum of its steps: one of the two files was edited or damaged)`,
    );
    // The refused merge left no records (the refused one was already copied), so the same --out takes the mended shards.
    expect(hasRecords(path.join(tmp, 'merged-unsummed'))).toBe(false);
    fs.writeFileSync(runs1, good);
    r = await merge('merged-unsummed');
    expect(r.code, r.stderr).toBe(0);
  });

  it('one configuration is named as one: no "1 configurations", no "most expensive" of one, a caching table called what it is', () => {
    const md = read('summary.md');
    expect(md).toContain('2 runs, 1 configuration; costs priced as recorded');
    expect(md).toMatch(/- At 10,000 runs a day, seed-calibrated steps=4 costs \$[0-9.]+ a day, \$[0-9.,]+ a month\./);
    const html = read('report.html');
    expect(html).toContain('2 runs over 1 configuration. Costs');
    // Only the recorded model, with and without caching: not "other models' rates".
    expect(html).toContain('<section id="repricing"><h2>With and without prompt caching</h2>');
    expect(html).toContain(
      "The recorded tokens at the report's own rates (gpt-4o-mini), without and with prompt caching",
    );
    expect(html).not.toMatch(/most expensive|1 configurations/);
  });

  it("a flag report does not have points to report's own help", async () => {
    const r = await benchInProcess(['report', sweep, '--steps', '4']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe("bench: unknown option '--steps' (run bench report --help for usage)");
  });
});
