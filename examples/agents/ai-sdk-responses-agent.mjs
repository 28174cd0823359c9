// Vercel's AI SDK with its OpenAI provider (@ai-sdk/openai 3, for `ai` 6) on its defaults:
// `openai(model)` calls the Responses API; `AI_SDK_API=chat` uses `openai.chat(model)` (Chat
// Completions) instead. Tools with zod schemas, the SDK's multi-step loop, and a structured final
// answer (`Output.object`, sent as the Responses API's text.format / Chat Completions' response_format):
//   npx bench run --agent-cmd "node examples/agents/ai-sdk-responses-agent.mjs" -s tiny-agent-sum-of-squares
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, Output, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { answer, env, executeCode, fail, reportUsage, search } from './lib/tools.mjs';

const openai = createOpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY });
const model = process.env.AI_SDK_API === 'chat' ? openai.chat(env.model) : openai(env.model);

const tools = {
  execute_code: tool({
    description: 'Run a Python 3 program and return what it prints.',
    inputSchema: z.object({
      code: z.string().describe('The program to run.'),
      language: z.enum(['python']),
      limits: z.object({ timeout_s: z.number().int().min(1).max(30), max_output_chars: z.number().int().min(100).max(4000).optional() }),
    }),
    execute: executeCode,
  }),
  search: tool({
    description: 'Search the web.',
    inputSchema: z.object({ query: z.string().min(1).max(200), mode: z.enum(['web', 'news', 'papers']), filters: z.object({ site: z.string().optional(), year: z.number().int().min(1990).max(2030).optional() }).optional() }),
    execute: search,
  }),
};

try {
  const result = await generateText({
    model,
    system: env.system,
    prompt: env.goal,
    tools,
    output: Output.object({ schema: z.object({ result: z.number().int(), explanation: z.string() }) }),
    stopWhen: stepCountIs(env.maxTurns),
    ...(env.seed !== undefined ? { seed: env.seed } : {}),
  });
  reportUsage(result.steps.map((s) => ({ input: s.usage.inputTokens, output: s.usage.outputTokens, id: s.response.id })));
  answer(`${result.output.result} (${result.output.explanation})`);
} catch (e) {
  fail(e);
}
