// Issue #38: hostile coding-agent logs at full size, imported as a user runs `bench import` (a child
// process, its peak RSS measured): a 300 MB line in an otherwise valid Claude Code session or Codex
// rollout is one stderr line and is never held whole; a million-line log imports with every call and
// token counted. The small-size cases (a BOM, a cut line, bad UTF-8) are import-agent-logs-lines.test.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunRecord } from '../src/contracts/records.ts';
import { runBenchChild } from '../src/perf/child.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-agent-log-hostile-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Big enough that buffering it as a string (≥ 300 MB, more in UTF-16) cannot fit under BOUND_MB. */
const HUGE_MB = 300;
/** The peak RSS the import must stay under, Node's own ~95 MB included (measured: 160 MB). */
const BOUND_MB = 300;
/** For a million lines (measured: 170–180 MB): the 180 MB Codex log read whole would pass it, as did a Set of the Claude Code call ids. */
const MILLION_BOUND_MB = 250;
const MILLION = 1_000_000;
const SESSION = '11111111-2222-3333-4444-555555555555';
const ROLLOUT = 'rollout-2026-12-01T10-00-00-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee.jsonl';
const AT = '2026-12-01T10:00:00.000Z';

/** Token counts of call k, varied so the sums check every call was counted once. */
const tokens = (k: number) => ({ input: 1 + (k % 5), read: 100 + (k % 3), written: k % 2, output: 7 + (k % 4) });

const claudeCall = (k: number) => {
  const t = tokens(k);
  return `{"type":"assistant","sessionId":"${SESSION}","uuid":"u${k}","timestamp":"${AT}","isSidechain":false,"message":{"id":"msg_${k}","model":"claude-sonnet-4-5-20250929","role":"assistant","content":[{"type":"text","text":"ok"}],"usage":{"input_tokens":${t.input},"cache_read_input_tokens":${t.read},"cache_creation_input_tokens":${t.written},"output_tokens":${t.output}}}}\n`;
};
const codexCall = (k: number) => {
  const t = tokens(k);
  return `{"timestamp":"${AT}","type":"token_usage_record","payload":{"usage":{"input_tokens":${t.input + t.read + t.written},"cached_input_tokens":${t.read},"cache_write_input_tokens":${t.written},"output_tokens":${t.output},"reasoning_output_tokens":0}}}\n`;
};

interface Shape {
  format: 'claude-code' | 'codex';
  file: string;
  head: string[];
  call: (k: number) => string;
  /** A line whose one string field runs on: written as its start, the filler, its end. */
  huge: [string, string];
}

const SHAPES: Shape[] = [
  {
    format: 'claude-code',
    file: `${SESSION}.jsonl`,
    head: [
      `{"type":"user","sessionId":"${SESSION}","uuid":"u","timestamp":"${AT}","message":{"role":"user","content":"go"}}\n`,
    ],
    call: claudeCall,
    huge: [
      `{"type":"user","sessionId":"${SESSION}","uuid":"big","timestamp":"${AT}","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"`,
      '"}]}}\n',
    ],
  },
  {
    format: 'codex',
    file: ROLLOUT,
    head: [
      `{"timestamp":"${AT}","type":"session_meta","payload":{"id":"aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee","cli_version":"0.171.0"}}\n`,
      `{"timestamp":"${AT}","type":"turn_context","payload":{"model":"gpt-4o"}}\n`,
    ],
    call: codexCall,
    huge: [
      `{"timestamp":"${AT}","type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"`,
      '"}}\n',
    ],
  },
];

/**
 * A log of the shape's head lines and `calls` calls, the huge line (if any) after the first half:
 * streamed to disk in batches, never built whole. Returns the huge line's number.
 */
function writeLog(file: string, s: Shape, calls: number, hugeMb: number): number {
  const fd = fs.openSync(file, 'w');
  try {
    const lines = (from: number, to: number) => {
      for (let k = from; k < to; k += 10_000) {
        let batch = '';
        for (let j = k; j < Math.min(k + 10_000, to); j++) batch += s.call(j);
        fs.writeSync(fd, batch);
      }
    };
    fs.writeSync(fd, s.head.join(''));
    const half = Math.floor(calls / 2);
    lines(0, half);
    if (hugeMb) {
      fs.writeSync(fd, s.huge[0]);
      const filler = Buffer.alloc(1024 * 1024, 'x');
      for (let i = 0; i < hugeMb; i++) fs.writeSync(fd, filler);
      fs.writeSync(fd, s.huge[1]);
    }
    lines(half, calls);
    return s.head.length + half + 1;
  } finally {
    fs.closeSync(fd);
  }
}

/** What the run record must total for calls 0…n-1. */
function expected(n: number) {
  const sum = { calls: n, input_tokens: 0, cached_tokens: 0, output_tokens: 0 };
  for (let k = 0; k < n; k++) {
    const t = tokens(k);
    sum.input_tokens += t.input + t.read + t.written;
    sum.cached_tokens += t.read;
    sum.output_tokens += t.output;
  }
  return sum;
}

/** `bench import DIR --format F --no-report --skip-bad` in a child process: its run records, stderr and peak RSS. */
async function importChild(s: Shape, dir: string) {
  const out = path.join(tmp, `out-${path.basename(dir)}`);
  const r = await runBenchChild(['import', dir, '--format', s.format, '-o', out, '--no-report', '--skip-bad']);
  const runs = fs
    .readFileSync(path.join(out, 'runs.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as RunRecord);
  fs.rmSync(out, { recursive: true, force: true });
  return { ...r, runs };
}

const totals = (r: RunRecord) => ({
  calls: r.calls,
  input_tokens: r.input_tokens,
  cached_tokens: r.cached_tokens,
  output_tokens: r.output_tokens,
});

// A loaded two-core machine is slow, not wrong: the child's CPU is a few seconds, its wall time may be more.
const SLOW = 600_000;

describe.each(SHAPES)('a hostile $format log at full size', (s) => {
  it(
    `a ${HUGE_MB} MB line is one stderr line naming the file and line, the rest imported, peak RSS under ${BOUND_MB} MB`,
    async () => {
      const dir = path.join(tmp, `huge-${s.format}`);
      fs.mkdirSync(dir);
      const calls = 1000;
      const n = writeLog(path.join(dir, s.file), s, calls, HUGE_MB);
      try {
        const r = await importChild(s, dir);
        const about = r.stderr.split('\n').filter((l) => l.includes(s.file));
        expect(about).toEqual([
          `bench: skipped ${path.join(dir, s.file)}: 1 line(s) skipped — 1 longer than 64 MiB (first: line ${n}); the file's other lines are imported`,
        ]);
        expect(r.runs.map(totals)).toEqual([expected(calls)]);
        expect(r.peakRssMb).toBeLessThan(BOUND_MB);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
    SLOW,
  );

  it(
    `a million-line log: every call and token counted, nothing skipped, peak RSS under ${MILLION_BOUND_MB} MB`,
    async () => {
      const dir = path.join(tmp, `million-${s.format}`);
      fs.mkdirSync(dir);
      const calls = MILLION - s.head.length;
      writeLog(path.join(dir, s.file), s, calls, 0);
      try {
        const r = await importChild(s, dir);
        expect(r.stderr).toBe('');
        expect(r.stdout).toMatch(new RegExp(`^imported 1 run\\(s\\), ${calls} agent step\\(s\\); records in `));
        expect(r.runs.map(totals)).toEqual([expected(calls)]);
        expect(r.peakRssMb).toBeLessThan(MILLION_BOUND_MB);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
    SLOW,
  );
});
