// Real agents through --agent-cmd against the sim gateway: the stdlib Python tiny agent and the same
// agent on Vercel's AI SDK (`ai` + `@ai-sdk/openai-compatible`). Each reports the usage its API
// client saw; it must equal what the gateway metered, call for call.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentSweep } from './support/agent-sweep.ts';
import { patient } from './helpers/patient.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-frameworks-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const AGENTS: Array<[string, string]> = [
  ['the stdlib Python tiny agent', 'python3 examples/agents/tiny_agent.py'],
  ['the AI SDK agent (ai + @ai-sdk/openai-compatible, zod tool schema)', 'node examples/agents/ai-sdk-agent.mjs'],
];

describe.each(AGENTS)('%s', (_name, cmd) => {
  it(
    "solves the scenario, stops at the gateway's step limit, and its own usage equals the gateway's, call for call",
    async () => {
      const usageDir = fs.mkdtempSync(path.join(tmp, 'usage-'));
      const { runs, steps } = await agentSweep(
        { agentCmd: cmd, scenario: 'tiny-agent-sum-of-squares', steps: '3,10', repeat: '2', concurrency: '4' },
        { AGENT_USAGE_DIR: usageDir, HOME: process.env.HOME },
      );
      expect(runs).toHaveLength(4);
      for (const r of runs.filter((x) => x.settings.limits.max_steps === 10))
        expect(r).toMatchObject({ stop_reason: 'done', success: true });
      expect(runs.some((r) => r.stop_reason === 'max_steps' && r.steps === 3)).toBe(true);
      for (const r of runs.filter((x) => x.stop_reason === 'done')) {
        const reported = JSON.parse(fs.readFileSync(path.join(usageDir, `${r.run_id}.json`), 'utf8')) as Array<{
          input: number;
          output: number;
        }>;
        const metered = steps
          .filter((s) => s.run_id === r.run_id)
          .map((s) => ({ input: s.input_tokens, output: s.output_tokens }));
        expect(reported.length).toBeGreaterThanOrEqual(3);
        expect(reported).toEqual(metered);
      }
    },
    patient(60_000),
  );
});
