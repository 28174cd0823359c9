// An agent on the Anthropic TS SDK (@anthropic-ai/sdk): the Messages API, tools with zod schemas
// (the SDK's betaZodTool) run by the SDK's own tool runner. It reads ANTHROPIC_BASE_URL and
// ANTHROPIC_API_KEY (`bench run --agent-cmd` sets both to the gateway and the run's virtual key):
//   npx bench run --agent-cmd "node examples/agents/anthropic-agent.mjs" -s tiny-agent-sum-of-squares
import Anthropic from '@anthropic-ai/sdk';
import { betaZodTool } from '@anthropic-ai/sdk/helpers/beta/zod';
import { z } from 'zod';
import { answer, env, executeCode, fail, reportUsage, search } from './lib/tools.mjs';

const client = new Anthropic({ maxRetries: 0 });
const tools = [
  betaZodTool({
    name: 'execute_code',
    description: 'Run a Python 3 program and return what it prints.',
    inputSchema: z.object({
      code: z.string().describe('The program to run.'),
      language: z.enum(['python']),
      limits: z.object({ timeout_s: z.number().int().min(1).max(30), max_output_chars: z.number().int().min(100).max(4000).optional() }),
    }),
    run: executeCode,
  }),
  betaZodTool({
    name: 'search',
    description: 'Search the web.',
    inputSchema: z.object({ query: z.string().min(1).max(200), mode: z.enum(['web', 'news', 'papers']), filters: z.object({ site: z.string().optional(), year: z.number().int().min(1990).max(2030).optional() }).optional() }),
    run: search,
  }),
];

try {
  const runner = client.beta.messages.toolRunner({
    model: env.model,
    max_tokens: 1024,
    system: env.system,
    messages: [{ role: 'user', content: env.goal }],
    tools,
    max_iterations: env.maxTurns,
    ...(process.env.ANTHROPIC_STREAM === 'on' ? { stream: true } : {}),
  });
  const usage = [];
  let last;
  for await (const step of runner) {
    last = process.env.ANTHROPIC_STREAM === 'on' ? await step.finalMessage() : step;
    const u = last.usage;
    usage.push({ input: u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0), output: u.output_tokens, id: last.id });
  }
  reportUsage(usage);
  answer(last.content.filter((b) => b.type === 'text').map((b) => b.text).join(''));
} catch (e) {
  fail(e);
}
