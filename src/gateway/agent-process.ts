// The agent under test as a process: started through the shell in its own process group, so a
// timeout or Ctrl-C ends it and everything it started. Its answer is its last line of stdout, or
// the last JSON line of the form {"answer": ...}.
import { spawn } from 'node:child_process';

const STDOUT_KEEP = 64 * 1024;
const STDERR_KEEP = 2000;
/** After SIGTERM on Ctrl-C, the agent's tree gets this long to exit before SIGKILL. */
const GRACE_MS = 2000;

export interface AgentExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  interrupted: boolean;
  stdout: string;
  stderrTail: string;
  /** Could not be started at all (e.g. the shell is missing). */
  spawnError: string | null;
}

export interface AgentProcessOptions {
  env: NodeJS.ProcessEnv;
  timeoutMs: number | null;
  signal?: AbortSignal;
  cwd?: string;
}

function killTree(pid: number | undefined, sig: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, sig);
  } catch {
    // The group is already gone.
  }
}

export function runAgentProcess(cmd: string, o: AgentProcessOptions): Promise<AgentExit> {
  return new Promise((resolve) => {
    const child = spawn(cmd, { shell: true, detached: true, env: o.env, cwd: o.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let interrupted = false;
    let spawnError: string | null = null;
    child.stdout.on('data', (d: Buffer) => (stdout = (stdout + d.toString()).slice(-STDOUT_KEEP)));
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-STDERR_KEEP)));
    child.on('error', (e) => (spawnError = e.message));
    const timer = o.timeoutMs === null ? null : setTimeout(() => ((timedOut = true), killTree(child.pid, 'SIGKILL')), o.timeoutMs);
    let grace: NodeJS.Timeout | null = null;
    const onAbort = () => {
      interrupted = true;
      killTree(child.pid, 'SIGTERM');
      grace = setTimeout(() => killTree(child.pid, 'SIGKILL'), GRACE_MS);
    };
    if (o.signal?.aborted) onAbort();
    else o.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      if (grace) clearTimeout(grace);
      o.signal?.removeEventListener('abort', onAbort);
      // Whatever the shell left behind in its group goes with it.
      killTree(child.pid, 'SIGKILL');
      resolve({ code, signal, timedOut, interrupted, stdout, stderrTail: stderr.trim(), spawnError });
    });
  });
}

/** The agent's answer: its last `{"answer": ...}` JSON line, else its last non-empty line of stdout. */
export function answerOf(stdout: string): string | null {
  const lines = stdout.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (!line.startsWith('{')) continue;
    try {
      const v = JSON.parse(line) as { answer?: unknown };
      if (v && typeof v === 'object' && 'answer' in v) return typeof v.answer === 'string' ? v.answer : JSON.stringify(v.answer);
    } catch {
      // Not JSON: an ordinary line.
    }
  }
  return lines.at(-1) ?? null;
}
