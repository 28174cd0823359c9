// Vercel's AI SDK with its OpenAI provider (@ai-sdk/openai 3, for `ai` 6) on its defaults:
// `openai(model)` calls the Responses API; `AI_SDK_API=chat` uses `openai.chat(model)` (Chat
// Completions) instead. Tools with zod schemas, the SDK's multi-step loop, and a structured final
// answer (`Output.object`, sent as the Responses API's text.format / Chat Completions' response_format):
//   npx bench run --agent-cmd "node examples/agents/ai-sdk-responses-agent.mjs" -s tiny-agent-sum-of-squares
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, Output, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import {
  answer,
  CODE_DESCRIPTION,
  codeInput,
  env,
  executeCode,
  fail,
  reportUsage,
  search,
  SEARCH_DESCRIPTION,
  searchInput,
} from './lib/tools.mjs';

const openai = createOpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY });
const model = process.env.AI_SDK_API === 'chat' ? openai.chat(env.model) : openai(env.model);

const tools = {
  execute_code: tool({
    description: CODE_DESCRIPTION,
    inputSchema: codeInput,
    execute: executeCode,
  }),
  search: tool({
    description: SEARCH_DESCRIPTION,
    inputSchema: searchInput,
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
  reportUsage(
    result.steps.map((s) => ({ input: s.usage.inputTokens, output: s.usage.outputTokens, id: s.response.id })),
  );
  answer(`${result.output.result} (${result.output.explanation})`);
} catch (e) {
  fail(e);
}
