// An --agent-cmd sweep from code, as `bench run --agent-cmd` runs it minus the reports: the gateway
// on 127.0.0.1, one agent process per planned run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RunRecord, StepRecord } from '../../src/contracts/records.ts';
import { startAgentHost } from '../../src/gateway/agent-cmd.ts';
import { TokenCounter } from '../../src/meter/tokens.ts';
import { readJsonl } from '../../src/results/jsonl.ts';
import { resultFile } from '../../src/results/results-dir.ts';
import { buildSweepSpec, type RunOptions } from '../../src/runner/plan.ts';
import { RUN_DEFAULTS } from '../../src/runner/run-defaults.ts';
import { expandSweep } from '../../src/runner/sweep.ts';
import { executeSweep } from '../../src/runner/sweep-runner.ts';
import { transportFrom } from '../../src/runner/transport.ts';
import { startSim } from '../../src/serve/server.ts';

export async function agentSweep(
  flags: Partial<RunOptions> & { agentCmd: string; concurrency?: string },
  env: NodeJS.ProcessEnv = {},
  signal?: AbortSignal,
) {
  const opts = { ...RUN_DEFAULTS, ...flags };
  const transport = transportFrom(opts, env);
  const spec = buildSweepSpec(opts, transport);
  const plans = expandSweep(spec);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-agent-sweep-'));
  const host = await startAgentHost({
    counter: new TokenCounter(),
    transport,
    promptCache: false,
    startSim,
    baseEnv: { PATH: process.env.PATH, ...env },
  });
  try {
    const meta = await executeSweep({
      dir,
      spec,
      plans,
      concurrency: Number(opts.concurrency),
      transcripts: true,
      progress: { tick() {}, stop() {} },
      command: [],
      transport,
      execute: host.execute,
      signal,
    });
    const runs = (await readJsonl<RunRecord>(resultFile(dir, 'runs'))).records;
    const steps = (await readJsonl<StepRecord>(resultFile(dir, 'steps'))).records;
    return { dir, meta, runs, steps };
  } finally {
    await host.close();
  }
}

/** A small Python agent for one case; `body` runs with `call()` (one model call) available. */
export function pythonAgent(dir: string, name: string, body: string): string {
  const file = path.join(dir, `${name}.py`);
  fs.writeFileSync(
    file,
    `import json, os, sys, urllib.request
def call():
    req = urllib.request.Request(os.environ["OPENAI_BASE_URL"] + "/chat/completions",
        data=json.dumps({"model": "m", "messages": [{"role": "system", "content": os.environ["LOOPBENCH_SYSTEM"]}, {"role": "user", "content": os.environ["LOOPBENCH_GOAL"]}]}).encode(),
        headers={"content-type": "application/json", "authorization": "Bearer " + os.environ["OPENAI_API_KEY"]})
    return json.load(urllib.request.urlopen(req))
${body}
`,
  );
  return `python3 ${file}`;
}
