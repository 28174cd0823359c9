// Issue #38: hostile coding-agent logs at full size, imported as a user runs `bench import` (a child
// process, its peak RSS measured): a 300 MB line in an otherwise valid Claude Code session or Codex
// rollout is one stderr line and is never held whole. The same logs at a million lines (every call and
// token counted, peak RSS under 250 MB) are `bench perf --only import`, rows 15–16; the small-size cases
// (a BOM, a cut line, bad UTF-8) are import-agent-logs-lines.test.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expectedTotals, importAgentLogChild, LOG_SHAPES, totalsOf, writeAgentLog } from '../src/perf/agent-logs.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-agent-log-hostile-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Big enough that buffering it as a string (≥ 300 MB, more in UTF-16) cannot fit under BOUND_MB. */
const HUGE_MB = 300;
/** The peak RSS the import must stay under, Node's own ~95 MB included (measured: 160 MB). */
const BOUND_MB = 300;

// A loaded two-core machine is slow, not wrong: the child's CPU is a few seconds, its wall time may be more.
const SLOW = 600_000;

describe.each(LOG_SHAPES)('a hostile $format log at full size', (s) => {
  it(
    `a ${HUGE_MB} MB line is one stderr line naming the file and line, the rest imported, peak RSS under ${BOUND_MB} MB`,
    async () => {
      const dir = path.join(tmp, `huge-${s.format}`);
      fs.mkdirSync(dir);
      const calls = 1000;
      const n = writeAgentLog(path.join(dir, s.file), s, calls, HUGE_MB);
      try {
        const r = await importAgentLogChild(s, dir, path.join(tmp, `out-huge-${s.format}`));
        const about = r.stderr.split('\n').filter((l) => l.includes(s.file));
        expect(about).toEqual([
          `bench: skipped ${path.join(dir, s.file)}: 1 line(s) skipped — 1 longer than 64 MiB (first: line ${n}); the file's other lines are imported`,
        ]);
        expect(r.runs.map(totalsOf)).toEqual([expectedTotals(calls)]);
        expect(r.peakRssMb).toBeLessThan(BOUND_MB);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
    SLOW,
  );
});
