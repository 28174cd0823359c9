// Atomic artifacts: every report file (CSV, JSON, HTML, SVG, PNG, Markdown) is written to a temp
// name and renamed, so a reader — or a crash, or a full disk half way — never leaves half a report.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildReports } from '../src/report/build.ts';
import { writeFileAtomic } from '../src/results/atomic.ts';
import { benchInProcess, ROOT } from './helpers/cli.ts';
import { patient } from './helpers/patient.ts';

let tmp: string;
beforeAll(() => void (tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-atomic-'))));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

/** Every file under dir, relative path → content. */
function snapshot(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const rel of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const full = path.join(dir, rel);
    if (fs.statSync(full).isFile()) out.set(rel, fs.readFileSync(full));
  }
  return out;
}

/** fs.writeFileSync that writes half of `data` for files matching `hit`, then fails like a full disk. */
function failHalfWayOn(hit: RegExp) {
  const real = fs.writeFileSync.bind(fs) as (...a: unknown[]) => void;
  const names = new Map<number, string>();
  const open = fs.openSync.bind(fs) as (...a: unknown[]) => number;
  vi.spyOn(fs, 'openSync').mockImplementation(((p: fs.PathLike, ...rest: unknown[]) => {
    const fd = open(p, ...rest);
    names.set(fd, String(p));
    return fd;
  }) as typeof fs.openSync);
  vi.spyOn(fs, 'writeFileSync').mockImplementation(((
    target: fs.PathOrFileDescriptor,
    data: string | Uint8Array,
    ...rest: unknown[]
  ) => {
    // Match on the final name, whether written directly or through a temp name (.NAME.PID.tmp).
    const name = (typeof target === 'number' ? (names.get(target) ?? '') : String(target)).replace(
      /\/\.([^/]+)\.\d+\.tmp$/,
      '/$1',
    );
    if (!hit.test(name)) return real(target, data, ...rest);
    real(target, data.slice(0, Math.floor(data.length / 2)), ...rest);
    throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  }) as typeof fs.writeFileSync);
}

describe('atomic artifacts', { timeout: patient(180_000) }, () => {
  it('writeFileAtomic: a write that fails half way keeps the old file and leaves no temp file', () => {
    const file = path.join(tmp, 'unit', 'summary.csv');
    writeFileAtomic(file, 'old,complete\n');
    failHalfWayOn(/summary\.csv/);
    expect(() => writeFileAtomic(file, 'new,content,that,is,long\n')).toThrow(/ENOSPC/);
    vi.restoreAllMocks();
    expect(fs.readFileSync(file, 'utf8')).toBe('old,complete\n');
    expect(fs.readdirSync(path.dirname(file))).toEqual(['summary.csv']);
  });

  it.each([
    ['steps.csv (streamed)', /steps\.csv$/],
    ['report.html', /report\.html$/],
    ['a chart SVG', /\.svg$/],
  ])(
    'a report rebuild that fails while writing %s keeps the previous file whole and leaves no temp file',
    async (_what, hit) => {
      const dir = path.join(tmp, `sweep-${String(hit).replace(/\W/g, '')}`);
      const made = await benchInProcess([
        '--steps',
        '12',
        '--repeat',
        '1',
        '-s',
        'tiny-agent-sum-of-squares',
        '-q',
        '--no-transcripts',
        '-o',
        dir,
      ]);
      expect(made.code).toBe(0);
      const before = snapshot(dir);
      const target = [...before.keys()].filter((k) => hit.test(k)).sort()[0]!;
      expect(target).toBeDefined();
      failHalfWayOn(hit);
      await expect(buildReports(dir)).rejects.toThrow(/ENOSPC/);
      vi.restoreAllMocks();
      const after = snapshot(dir);
      // Files written before the failure may be new (whole) versions; the one that failed is the old one.
      expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
      expect(after.get(target)!.equals(before.get(target)!)).toBe(true);
    },
  );

  it('no source file writes to disk except through atomic.ts (whole-file artifacts) and jsonl.ts (append-only records)', () => {
    const src = path.join(ROOT, 'src');
    const offenders: string[] = [];
    for (const rel of fs.readdirSync(src, { recursive: true }) as string[]) {
      // gate/github.ts: appends to GitHub's own $GITHUB_STEP_SUMMARY file, as GitHub documents (not our artifact).
      // rss-probe.ts: a measurement probe a `bench perf` child writes for its parent at exit, not an
      // artifact; it stays dependency-free so it does not change what it measures.
      // input-file.ts and trajectories/json-stream.ts (imports read in pieces) open read-only (non-blocking,
      // so a FIFO cannot hang them); writable-dir.ts creates and removes an empty probe file to test that
      // --out is writable before any work; tools/python-path.ts opens python3 read-only for its first two
      // bytes (a script or a program).
      if (
        !rel.endsWith('.ts') ||
        [
          'results/atomic.ts',
          'results/jsonl.ts',
          'perf/rss-probe.ts',
          'gate/github.ts',
          'contracts/input-file.ts',
          'trajectories/json-stream.ts',
          'results/writable-dir.ts',
          'tools/python-path.ts',
        ].includes(rel)
      )
        continue;
      const text = fs.readFileSync(path.join(src, rel), 'utf8');
      for (const api of [
        'writeFileSync',
        'writeFile(',
        'appendFile',
        'createWriteStream',
        'writeSync',
        'openSync',
        'renameSync',
        'copyFileSync',
      ])
        if (text.includes(api)) offenders.push(`${rel}: ${api}`);
    }
    expect(offenders).toEqual([]);
  });
});
