// An agent on the Anthropic TS SDK (@anthropic-ai/sdk): the Messages API, tools with zod schemas
// (the SDK's betaZodTool) run by the SDK's own tool runner. It reads ANTHROPIC_BASE_URL and
// ANTHROPIC_API_KEY (`bench run --agent-cmd` sets both to the gateway and the run's virtual key):
//   npx bench run --agent-cmd "node examples/agents/anthropic-agent.mjs" -s tiny-agent-sum-of-squares
import Anthropic from '@anthropic-ai/sdk';
import { betaZodTool } from '@anthropic-ai/sdk/helpers/beta/zod';
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

const client = new Anthropic();
const tools = [
  betaZodTool({
    name: 'execute_code',
    description: CODE_DESCRIPTION,
    inputSchema: codeInput,
    run: executeCode,
  }),
  betaZodTool({
    name: 'search',
    description: SEARCH_DESCRIPTION,
    inputSchema: searchInput,
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
    usage.push({
      input: u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0),
      output: u.output_tokens,
      id: last.id,
    });
  }
  reportUsage(usage);
  answer(
    last.content
      .filter((b) => b.type === 'text')
      .map((b) => b.text)
      .join(''),
  );
} catch (e) {
  fail(e);
}
