// `bench perf --only import`: `bench import` of one ATIF trajectory of a million agent steps, in a
// child process as a user runs it, timed, with its peak RSS: records only (`--no-report`), then the
// same file again with its reports (and the what-if an import gets by default). The floor, measured in
// the same round: this process reading the same steps as JSON lines and JSON.parse'ing each one, the
// least work any importer must do. Rounds interleave the three, so a neighbour's burst on a shared
// machine lands in one round's figures, not in one side of a ratio.
import fs from 'node:fs';
import path from 'node:path';
import { JsonlWriter } from '../results/jsonl.ts';
import { runBenchChild, type ChildRun } from './child.ts';
import { tempDir } from './sweep.ts';

export const IMPORT_TARGET = {
  steps: 1_000_000,
  stepsPerSecond: 50_000,
  peakRssMb: 300,
  /** With reports: CPU time at most this many times the floor's, and peak RSS. */
  reportedFloorRatio: 4,
  reportedPeakRssMb: 500,
};

export interface ImportRound {
  run: ChildRun;
  /** The same import with its reports. */
  reported: ChildRun;
  stepsPerSecond: number;
  /** The floor: reading and parsing each step's JSON alone, CPU ms. */
  floorCpuMs: number;
}

export interface ImportBenchResult {
  steps: number;
  fileMb: number;
  rounds: ImportRound[];
}

/** One agent step of a search loop: a tool call, its metrics, a growing prompt. */
const stepJson = (k: number) =>
  `{"step_id":${k + 1},"timestamp":"${new Date(Date.UTC(2026, 0, 1) + k * 1000).toISOString()}","source":"agent","message":"","tool_calls":[{"tool_call_id":"c${k}","function_name":"search","arguments":{"q":"page ${k % 1000}"}}],"metrics":{"prompt_tokens":${200 + k},"completion_tokens":50,"cost_usd":0.00003}}`;

/** The trajectory file, and the same steps one per line (the floor's input). */
function writeInputs(dir: string, steps: number): { atif: string; lines: string } {
  const atif = path.join(dir, 'big.json');
  const lines = path.join(dir, 'steps.jsonl');
  // Written a batch of steps a line (JSON allows the newlines between them), through the one appending writer.
  const a = new JsonlWriter(atif);
  const l = new JsonlWriter(lines);
  a.writeLine(
    '{"schema_version":"ATIF-v1.6","session_id":"perf","agent":{"name":"perf-agent","model_name":"gpt-4o-mini"},"steps":[{"step_id":1,"source":"user","message":"goal"}\n',
  );
  for (let k = 1; k <= steps; k += 10_000) {
    const batch: string[] = [];
    for (let j = k; j < Math.min(k + 10_000, steps + 1); j++) batch.push(stepJson(j));
    a.writeLine(`,${batch.join(',')}\n`);
    l.writeLine(`${batch.join('\n')}\n`);
  }
  a.writeLine(']}\n');
  a.close();
  l.close();
  return { atif, lines };
}

function floorCpuMs(file: string): number {
  const start = process.cpuUsage();
  let parsed = 0;
  for (const p of fs.readFileSync(file, 'utf8').split('\n')) if (p && JSON.parse(p)) parsed++;
  if (parsed === 0) throw new Error('the floor parsed nothing');
  const cpu = process.cpuUsage(start);
  return (cpu.user + cpu.system) / 1000;
}

/** `rounds` rounds of the floor, the import and the import with its reports, each import into a fresh folder. */
export async function importBench(steps: number, rounds: number): Promise<ImportBenchResult> {
  const dir = tempDir();
  try {
    const input = writeInputs(dir, steps);
    const done: ImportRound[] = [];
    for (let i = 0; i < rounds; i++) {
      const floor = floorCpuMs(input.lines);
      const out = path.join(dir, `out-${i}`);
      const run = await runBenchChild(['import', input.atif, '-o', out, '--no-report']);
      fs.rmSync(out, { recursive: true, force: true });
      const reportedOut = path.join(dir, `reported-${i}`);
      const reported = await runBenchChild(['import', input.atif, '-o', reportedOut]);
      fs.rmSync(reportedOut, { recursive: true, force: true });
      done.push({ run, reported, stepsPerSecond: steps / (run.ms / 1000), floorCpuMs: floor });
    }
    return { steps, fileMb: fs.statSync(input.atif).size / 1e6, rounds: done };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
