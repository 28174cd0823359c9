// Coding-agent logs at full size (issue #38): a Claude Code session and a Codex rollout written
// line by line, and what their run record must total. `bench perf --only import` imports a
// million-line log of each in a child process (rows 15–16: every call and token counted, peak RSS);
// test/import-agent-logs-hostile.test.ts writes the same logs with a 300 MB line in the middle.
import fs from 'node:fs';
import path from 'node:path';
import type { RunRecord } from '../contracts/records.ts';
import { JsonlWriter } from '../results/jsonl.ts';
import { runBenchChild, type ChildRun } from './child.ts';
import { tempDir } from './sweep.ts';

/** For a million lines (measured: 170–180 MB): the 180 MB Codex log read whole would pass it, as did a Set of the Claude Code call ids. */
export const AGENT_LOG_PEAK_RSS_MB = 250;

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

export interface LogShape {
  format: 'claude-code' | 'codex';
  file: string;
  head: string[];
  call: (k: number) => string;
  /** A line whose one string field runs on: written as its start, the filler, its end. */
  huge: [string, string];
}

export const LOG_SHAPES: LogShape[] = [
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
 * A log of the shape's head lines and `calls` calls, a line of `hugeMb` MB (if any) after the first half:
 * streamed to disk in batches, never built whole. Returns the huge line's number.
 */
export function writeAgentLog(file: string, s: LogShape, calls: number, hugeMb: number): number {
  // Through the one appending writer (a new file each time); the huge line goes in pieces, never whole.
  const w = new JsonlWriter(file);
  try {
    const lines = (from: number, to: number) => {
      for (let k = from; k < to; k += 10_000) {
        let batch = '';
        for (let j = k; j < Math.min(k + 10_000, to); j++) batch += s.call(j);
        w.writeLine(batch);
      }
    };
    w.writeLine(s.head.join(''));
    const half = Math.floor(calls / 2);
    lines(0, half);
    if (hugeMb) {
      w.writeLine(s.huge[0]);
      const filler = Buffer.alloc(1024 * 1024, 'x');
      for (let i = 0; i < hugeMb; i++) w.writeBytes(filler);
      w.writeLine(s.huge[1]);
    }
    lines(half, calls);
    return s.head.length + half + 1;
  } finally {
    w.close();
  }
}

export interface LogTotals {
  calls: number;
  input_tokens: number;
  cached_tokens: number;
  output_tokens: number;
}

/** What the run record must total for calls 0…n-1. */
export function expectedTotals(n: number): LogTotals {
  const sum = { calls: n, input_tokens: 0, cached_tokens: 0, output_tokens: 0 };
  for (let k = 0; k < n; k++) {
    const t = tokens(k);
    sum.input_tokens += t.input + t.read + t.written;
    sum.cached_tokens += t.read;
    sum.output_tokens += t.output;
  }
  return sum;
}

export const totalsOf = (r: RunRecord): LogTotals => ({
  calls: r.calls,
  input_tokens: r.input_tokens,
  cached_tokens: r.cached_tokens,
  output_tokens: r.output_tokens,
});

/** `bench import DIR --format F --no-report --skip-bad` in a child process: its run records, and the child's figures. */
export async function importAgentLogChild(
  s: LogShape,
  dir: string,
  outDir: string,
): Promise<ChildRun & { runs: RunRecord[] }> {
  const r = await runBenchChild(['import', dir, '--format', s.format, '-o', outDir, '--no-report', '--skip-bad']);
  const runs = fs
    .readFileSync(path.join(outDir, 'runs.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as RunRecord);
  return { ...r, runs };
}

export interface AgentLogImport {
  format: LogShape['format'];
  lines: number;
  fileMb: number;
  run: ChildRun;
  /** The one run record's totals equal every call's, each counted once, and nothing was skipped. */
  exact: boolean;
  /** What differs, when not exact. */
  problem: string;
}

/** Each shape's log of `lines` lines, imported in a child process. */
export async function agentLogsBench(lines: number): Promise<AgentLogImport[]> {
  const out: AgentLogImport[] = [];
  for (const s of LOG_SHAPES) {
    const dir = tempDir();
    try {
      const logs = path.join(dir, 'logs');
      fs.mkdirSync(logs);
      const calls = lines - s.head.length;
      writeAgentLog(path.join(logs, s.file), s, calls, 0);
      const fileMb = fs.statSync(path.join(logs, s.file)).size / 1e6;
      const { runs, ...run } = await importAgentLogChild(s, logs, path.join(dir, 'out'));
      const want = JSON.stringify([expectedTotals(calls)]);
      const got = JSON.stringify(runs.map(totalsOf));
      const problems = [
        ...(got === want ? [] : [`totals ${got}, expected ${want}`]),
        ...(run.stderr ? [`stderr: ${run.stderr.trim()}`] : []),
        ...(run.stdout.startsWith(`imported 1 run(s), ${calls} agent step(s); `)
          ? []
          : [`stdout: ${run.stdout.trim()}`]),
      ];
      out.push({ format: s.format, lines, fileMb, run, exact: problems.length === 0, problem: problems.join('; ') });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  return out;
}
