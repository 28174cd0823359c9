// The OpenAI Agents SDK (@openai/agents) on its defaults: the Responses API, its own agent loop,
// tools with zod schemas. Under loopbench:
//   npx bench run --agent-cmd "node examples/agents/agents-sdk-agent.mjs" -s tiny-agent-sum-of-squares
// The SDK's client reads OPENAI_BASE_URL and OPENAI_API_KEY. Tracing is on by default and exports to
// api.openai.com whatever the base URL; OPENAI_AGENTS_DISABLE_TRACING=1 turns it off.
import { Agent, run, tool } from '@openai/agents';
import { z } from 'zod';
import {
  answer,
  CODE_DESCRIPTION,
  env,
  executeCode,
  fail,
  reportUsage,
  search,
  SEARCH_DESCRIPTION,
} from './lib/tools.mjs';

const tools = [
  tool({
    name: 'execute_code',
    description: CODE_DESCRIPTION,
    parameters: z.object({
      code: z.string().describe('The program to run.'),
      language: z.enum(['python']),
      limits: z.object({
        timeout_s: z.number().int().min(1).max(30),
        max_output_chars: z.number().int().min(100).max(4000).nullable(),
      }),
    }),
    execute: executeCode,
  }),
  tool({
    name: 'search',
    description: SEARCH_DESCRIPTION,
    parameters: z.object({
      query: z.string().min(1).max(200),
      mode: z.enum(['web', 'news', 'papers']),
      filters: z
        .object({ site: z.string().nullable(), year: z.number().int().min(1990).max(2030).nullable() })
        .nullable(),
    }),
    execute: search,
  }),
];

// No seed: the Responses API has none (through loopbench's gateway, the run's seed is added to each call).
const agent = new Agent({ name: 'tiny-agent', instructions: env.system, model: env.model, tools });
try {
  const result = await run(agent, env.goal, { maxTurns: env.maxTurns });
  reportUsage(
    result.rawResponses.map((r) => ({ input: r.usage.inputTokens, output: r.usage.outputTokens, id: r.responseId })),
  );
  answer(result.finalOutput);
} catch (e) {
  fail(e);
}
