// The agent under test as a process: started through the shell in its own process group — and,
// where bubblewrap can make one, its own PID namespace — so a timeout or Ctrl-C ends it and
// everything it started. The run is bounded whatever the agent leaves behind: when it exits (or is
// killed) the processes it left are killed, those that left its group with setsid() found by a tag
// in their environment, and pipes still held open after that are let go of. Its answer is its last
// line of stdout, or the last JSON line of the form {"answer": ...}.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { detectContainment } from '../tools/containment.ts';
import { killTagged } from '../tools/tagged-processes.ts';

const STDOUT_KEEP = 64 * 1024;
const STDERR_KEEP = 2000;
/** After SIGTERM on Ctrl-C, the agent's tree gets this long to exit before SIGKILL. */
const GRACE_MS = 2000;
/** How long the pipes may stay open once the agent is over or killed: a process that escaped every kill and holds them is not waited for. */
export const PIPE_GRACE_MS = 1000;
/** Every process the agent starts inherits this variable (unless it clears it): how the ones that left its group are found. */
const TAG = 'LOOPBENCH_AGENT_TAG';

export interface AgentExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  interrupted: boolean;
  stdout: string;
  stderrTail: string;
  /** Could not be started at all (e.g. the shell is missing). */
  spawnError: string | null;
  /** Processes the agent left running outside its process group, killed when it ended (found by their tag). */
  leftRunning: number;
  /** A process still held the agent's stdout or stderr open PIPE_GRACE_MS after the agent ended: no longer read. */
  pipeHeld: boolean;
}

export interface AgentProcessOptions {
  env: NodeJS.ProcessEnv;
  timeoutMs: number | null;
  signal?: AbortSignal;
  cwd?: string;
  /** Run it in a PID namespace of its own (bubblewrap) when one can be made here; default true. */
  namespace?: boolean;
}

function killGroup(pid: number | undefined, sig: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, sig);
  } catch {
    // The group is already gone.
  }
}

/**
 * The shell command, in a PID namespace when bubblewrap works here: the whole file system and the
 * network as they are (the agent reaches the gateway on loopback), only its processes apart, so that
 * when its shell ends the kernel ends everything it started, setsid() or not.
 */
function commandFor(cmd: string, namespace: boolean): [string, string[]] {
  if (namespace && detectContainment() === 'bwrap')
    return [
      'bwrap',
      ['--dev-bind', '/', '/', '--proc', '/proc', '--unshare-pid', '--die-with-parent', '--', '/bin/sh', '-c', cmd],
    ];
  return ['/bin/sh', ['-c', cmd]];
}

export function runAgentProcess(cmd: string, o: AgentProcessOptions): Promise<AgentExit> {
  return new Promise((resolve) => {
    const tag = randomBytes(12).toString('hex');
    const [command, args] = commandFor(cmd, o.namespace ?? true);
    const child = spawn(command, args, {
      detached: true,
      env: { ...o.env, [TAG]: tag },
      cwd: o.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let interrupted = false;
    let spawnError: string | null = null;
    let exited: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    let leftRunning = 0;
    let settled = false;
    child.stdout.on('data', (d: Buffer) => (stdout = (stdout + d.toString()).slice(-STDOUT_KEEP)));
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-STDERR_KEEP)));
    /** Everything the agent started goes, whatever group it moved to; then the pipes get PIPE_GRACE_MS to close. */
    const endAll = () => {
      killGroup(child.pid, 'SIGKILL');
      leftRunning += killTagged(TAG, tag, child.pid);
      setTimeout(() => finish(true), PIPE_GRACE_MS).unref();
    };
    const timer = o.timeoutMs === null ? null : setTimeout(() => ((timedOut = true), endAll()), o.timeoutMs);
    let grace: NodeJS.Timeout | null = null;
    const onAbort = () => {
      interrupted = true;
      killGroup(child.pid, 'SIGTERM');
      grace = setTimeout(endAll, GRACE_MS);
    };
    const finish = (pipeHeld: boolean) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      if (grace) clearTimeout(grace);
      o.signal?.removeEventListener('abort', onAbort);
      child.stdout.destroy();
      child.stderr.destroy();
      const end = exited ?? { code: child.exitCode, signal: child.signalCode };
      resolve({ ...end, timedOut, interrupted, stdout, stderrTail: stderr.trim(), spawnError, leftRunning, pipeHeld });
    };
    if (o.signal?.aborted) onAbort();
    else o.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (e) => {
      spawnError = e.message;
      finish(false);
    });
    // The agent's shell is done: what it left behind is not part of the run.
    child.on('exit', (code, signal) => {
      exited = { code, signal };
      endAll();
    });
    child.on('close', () => finish(false));
  });
}

/** The agent's answer: its last `{"answer": ...}` JSON line, else its last non-empty line of stdout. */
export function answerOf(stdout: string): string | null {
  const lines = stdout
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (!line.startsWith('{')) continue;
    try {
      const v = JSON.parse(line) as { answer?: unknown };
      if (v && typeof v === 'object' && 'answer' in v)
        return typeof v.answer === 'string' ? v.answer : JSON.stringify(v.answer);
    } catch {
      // Not JSON: an ordinary line.
    }
  }
  return lines.at(-1) ?? null;
}
