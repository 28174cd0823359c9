// A standalone gateway killed (SIGKILL, an out-of-memory kill) before it recorded its open runs leaves
// its gateway.pid behind, and those runs' calls in steps.jsonl. `bench report` rebuilds their records
// from the steps (the ledger adds them up as the gateway would have), appends them to runs.jsonl and
// removes the stale pid file, so it happens once. A gateway still running is left alone: it records
// its runs itself.
import fs from 'node:fs';
import type { StepRecord } from '../contracts/records.ts';
import { RunLedger } from '../meter/ledger.ts';
import { cutPartialLine, JsonlWriter, readJsonlLines } from '../results/jsonl.ts';
import { resultFile } from '../results/results-dir.ts';

export type Recovery = { rebuilt: number; pid: number } | { running: number };

/** Whether process `pid` is alive (EPERM: alive, another user's). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Rebuilds the run records a killed standalone gateway never wrote; null when `dir` is not one it left. */
export async function recoverGatewayRuns(dir: string): Promise<Recovery | null> {
  const pidFile = resultFile(dir, 'gatewayPid');
  if (!fs.existsSync(pidFile)) return null;
  const pid = Number.parseInt(fs.readFileSync(pidFile, 'utf8'), 10);
  if (Number.isInteger(pid) && pid > 0 && alive(pid)) return { running: pid };
  const runsFile = resultFile(dir, 'runs');
  const recorded = new Set<string>();
  for await (const line of readJsonlLines(runsFile))
    if (line.ok) recorded.add((line.value as { run_id?: string }).run_id ?? '');
  const open = new Map<string, RunLedger>();
  for await (const line of readJsonlLines(resultFile(dir, 'steps'))) {
    if (!line.ok) continue;
    const s = line.value as StepRecord;
    if (typeof s.run_id !== 'string' || recorded.has(s.run_id)) continue;
    let ledger = open.get(s.run_id);
    if (!ledger) open.set(s.run_id, (ledger = new RunLedger(s.run_id, s.config_id, s.settings)));
    ledger.add(s);
  }
  if (open.size) {
    // A record cut short by the kill (unreadable anyway) must not swallow the first rebuilt one.
    cutPartialLine(runsFile);
    const out = new JsonlWriter(runsFile);
    for (const ledger of open.values()) {
      const t = ledger.totals;
      const detail = `rebuilt from steps.jsonl by bench report: the gateway (pid ${pid}) was killed before it recorded this run, so how the run ended is not known`;
      out.write(
        ledger.runRecord({
          agent: 'external',
          stop: { reason: 'interrupted', detail, step: t.steps },
          elapsedMs: t.elapsedMs,
          answer: null,
          success: null,
          started_at: '',
          finished_at: '',
        }),
      );
    }
    out.close();
  }
  fs.rmSync(pidFile, { force: true });
  return { rebuilt: open.size, pid };
}
