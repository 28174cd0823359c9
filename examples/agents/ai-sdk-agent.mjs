// The tiny agent on a real framework: Vercel's AI SDK (`ai`) with its OpenAI-compatible provider,
// one tool (run_python, zod schema), the SDK's own multi-step loop. Run it under loopbench with
//   npx bench run --agent-cmd "node examples/agents/ai-sdk-agent.mjs" -s tiny-agent-sum-of-squares
// (it needs `ai`, `@ai-sdk/openai-compatible` and `zod` installed, as in this repository).
// It prints its answer as a JSON line; with AGENT_USAGE_DIR set it also writes the usage the SDK
// reported for each step to AGENT_USAGE_DIR/<LOOPBENCH_RUN_ID>.json.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';

const provider = createOpenAICompatible({
  name: 'loopbench',
  baseURL: process.env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1',
  apiKey: process.env.OPENAI_API_KEY,
  includeUsage: true,
});

const runPython = tool({
  description: 'Run Python 3 code and return what it prints.',
  inputSchema: z.object({ code: z.string().describe('The program to run.') }),
  execute: async ({ code }) => {
    try {
      return execFileSync('python3', ['-c', code], { encoding: 'utf8', timeout: 10_000 }).slice(-2000) || '(no output)';
    } catch (e) {
      return `Error: ${String(e.stderr || e.message).slice(-2000)}`;
    }
  },
});

try {
  const result = await generateText({
    model: provider(process.env.LOOPBENCH_MODEL ?? 'gpt-4o-mini'),
    system: process.env.LOOPBENCH_SYSTEM,
    prompt: process.env.LOOPBENCH_GOAL ?? 'Compute the sum of squares of the integers from 1 to 100.',
    tools: { run_python: runPython },
    stopWhen: stepCountIs(Number(process.env.AI_AGENT_MAX_STEPS ?? 12)),
    ...(process.env.LOOPBENCH_SEED ? { seed: Number(process.env.LOOPBENCH_SEED) } : {}),
  });
  if (process.env.AGENT_USAGE_DIR) {
    const usage = result.steps.map((s) => ({ input: s.usage.inputTokens, output: s.usage.outputTokens }));
    fs.writeFileSync(
      path.join(process.env.AGENT_USAGE_DIR, `${process.env.LOOPBENCH_RUN_ID}.json`),
      JSON.stringify(usage),
    );
  }
  console.log(JSON.stringify({ answer: result.text }));
} catch (e) {
  // A brake at the gateway is a 403 with code loopbench_*: the SDK does not retry it.
  console.error(`stopped: ${e.message}`);
  process.exit(3);
}
