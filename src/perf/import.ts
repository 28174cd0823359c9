// `bench perf --only import`: `bench import` of one ATIF trajectory of a million agent steps, in a
// child process as a user runs it (records only: `--no-report`; report generation is target 5), timed,
// with its peak RSS. The floor, measured in the same run: this process reading the same steps as JSON
// lines and JSON.parse'ing each one, the least work any importer must do.
import fs from 'node:fs';
import path from 'node:path';
import { runBenchChild, type ChildRun } from './child.ts';
import { tempDir } from './sweep.ts';

export const IMPORT_TARGET = { steps: 1_000_000, stepsPerSecond: 50_000, peakRssMb: 300 };

export interface ImportBenchResult {
  steps: number;
  fileMb: number;
  run: ChildRun;
  stepsPerSecond: number;
  /** The floor: reading and parsing each step's JSON alone, CPU ms. */
  floorCpuMs: number;
}

/** One agent step of a search loop: a tool call, its metrics, a growing prompt. */
const stepJson = (k: number) =>
  `{"step_id":${k + 1},"timestamp":"${new Date(Date.UTC(2026, 0, 1) + k * 1000).toISOString()}","source":"agent","message":"","tool_calls":[{"tool_call_id":"c${k}","function_name":"search","arguments":{"q":"page ${k % 1000}"}}],"metrics":{"prompt_tokens":${200 + k},"completion_tokens":50,"cost_usd":0.00003}}`;

/** The trajectory file, and the same steps one per line (the floor's input). */
function writeInputs(dir: string, steps: number): { atif: string; lines: string } {
  const atif = path.join(dir, 'big.json');
  const lines = path.join(dir, 'steps.jsonl');
  const a = fs.openSync(atif, 'w');
  const l = fs.openSync(lines, 'w');
  fs.writeSync(a, '{"schema_version":"ATIF-v1.6","session_id":"perf","agent":{"name":"perf-agent","model_name":"gpt-4o-mini"},"steps":[{"step_id":1,"source":"user","message":"goal"}');
  for (let k = 1; k <= steps; k += 10_000) {
    const batch: string[] = [];
    for (let j = k; j < Math.min(k + 10_000, steps + 1); j++) batch.push(stepJson(j));
    fs.writeSync(a, `,${batch.join(',')}`);
    fs.writeSync(l, `${batch.join('\n')}\n`);
  }
  fs.writeSync(a, ']}');
  fs.closeSync(a);
  fs.closeSync(l);
  return { atif, lines };
}

function floorCpuMs(file: string): number {
  const start = process.cpuUsage();
  const fd = fs.openSync(file, 'r');
  const chunk = Buffer.allocUnsafe(1 << 20);
  let carry = '';
  let parsed = 0;
  for (let n = fs.readSync(fd, chunk); n > 0; n = fs.readSync(fd, chunk)) {
    const text = carry + chunk.toString('utf8', 0, n);
    const parts = text.split('\n');
    carry = parts.pop()!;
    for (const p of parts) if (JSON.parse(p)) parsed++;
  }
  fs.closeSync(fd);
  if (parsed === 0) throw new Error('the floor parsed nothing');
  const cpu = process.cpuUsage(start);
  return (cpu.user + cpu.system) / 1000;
}

export async function importBench(steps: number): Promise<ImportBenchResult> {
  const dir = tempDir();
  try {
    const input = writeInputs(dir, steps);
    const run = await runBenchChild(['import', input.atif, '-o', path.join(dir, 'out'), '--no-report']);
    return { steps, fileMb: fs.statSync(input.atif).size / 1e6, run, stepsPerSecond: steps / (run.ms / 1000), floorCpuMs: floorCpuMs(input.lines) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
