// `bench` commands, and bench perf's own scripts, run in a child process, timed, with their peak
// RSS: what a user's run costs.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../contracts/paths.ts';
import { tempDir } from './sweep.ts';

export interface ChildRun {
  /** Wall-clock time, in ms. */
  ms: number;
  /** CPU time of the child (user + system, all its threads), in ms: steady when other work shares the machine. */
  cpuMs: number;
  /** Peak resident set size of the child, in MB. */
  peakRssMb: number;
  stdout: string;
  stderr: string;
}

// The bundled probe, CLI and perf scripts (scripts/build.mjs), exactly what `npm run bench` runs.
const PROBE = pathToFileURL(path.join(ROOT, 'dist', 'rss-probe.js')).href;

/** Runs `bench ARGS` as a user's `npm run bench -- ARGS` does (bin/bench.js, the bundled CLI) and measures it. */
export function runBenchChild(args: string[]): Promise<ChildRun> {
  return runNodeChild(path.join(ROOT, 'bin', 'bench.js'), args, `bench ${args.join(' ')}`);
}

/** Runs one of the bundle's own scripts (dist/NAME.js, scripts/build.mjs) in a child process and measures it. */
export function runScriptChild(name: string, args: string[]): Promise<ChildRun> {
  return runNodeChild(path.join(ROOT, 'dist', `${name}.js`), args, `${name} ${args.join(' ')}`);
}

async function runNodeChild(script: string, args: string[], what: string): Promise<ChildRun> {
  const probeDir = tempDir();
  const probeFile = path.join(probeDir, 'probe.json');
  try {
    const start = performance.now();
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
      (resolve, reject) => {
        const child = spawn(process.execPath, ['--import', PROBE, script, ...args], {
          cwd: ROOT,
          env: { ...process.env, LOOPBENCH_PROBE_FILE: probeFile },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        let err = '';
        child.stdout.on('data', (d) => (out += d));
        child.stderr.on('data', (d) => (err += d));
        child.on('error', reject);
        child.on('close', (c) => resolve({ code: c, stdout: out, stderr: err }));
      },
    );
    const ms = performance.now() - start;
    if (code !== 0) throw new Error(`${what} exited with ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
    const probe = JSON.parse(fs.readFileSync(probeFile, 'utf8')) as { maxRSS: number; cpu: number };
    return { ms, cpuMs: probe.cpu / 1000, peakRssMb: probe.maxRSS / 1024, stdout, stderr };
  } finally {
    fs.rmSync(probeDir, { recursive: true, force: true });
  }
}
