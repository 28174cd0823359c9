// LangGraph's prebuilt ReAct agent (createReactAgent) on LangChain's ChatOpenAI (Chat Completions),
// tools with zod schemas. LANGGRAPH_STREAMING=on sets `streaming: true` on the model:
//   npx bench run --agent-cmd "node examples/agents/langgraph-agent.mjs" -s tiny-agent-sum-of-squares
// With streaming on, ChatOpenAI.invoke estimates the tokens of every call with js-tiktoken, whose
// encoding @langchain/core downloads from tiktoken.pages.dev (retrying with backoff): without internet,
// every call waits out those retries. LANGGRAPH_STREAM_GRAPH=on streams the graph instead
// (streamMode "messages"), which takes the model's streaming path and estimates nothing.
import { tool } from '@langchain/core/tools';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';
import { z } from 'zod';
import { answer, env, executeCode, fail, reportUsage, search } from './lib/tools.mjs';

const llm = new ChatOpenAI({
  model: env.model,
  streaming: process.env.LANGGRAPH_STREAMING === 'on',
  maxRetries: 0,
  configuration: { baseURL: process.env.OPENAI_BASE_URL },
  ...(env.seed !== undefined ? { modelKwargs: { seed: env.seed } } : {}),
});

const tools = [
  tool(executeCode, {
    name: 'execute_code',
    description: 'Run a Python 3 program and return what it prints.',
    schema: z.object({
      code: z.string().describe('The program to run.'),
      language: z.enum(['python']),
      limits: z.object({ timeout_s: z.number().int().min(1).max(30), max_output_chars: z.number().int().min(100).max(4000).optional() }),
    }),
  }),
  tool(search, {
    name: 'search',
    description: 'Search the web.',
    schema: z.object({ query: z.string().min(1).max(200), mode: z.enum(['web', 'news', 'papers']), filters: z.object({ site: z.string().optional(), year: z.number().int().min(1990).max(2030).optional() }).optional() }),
  }),
];

const agent = createReactAgent({ llm, tools, prompt: env.system });
const input = { messages: [{ role: 'user', content: env.goal }] };
const config = { recursionLimit: 2 * env.maxTurns + 1 };
try {
  let messages;
  if (process.env.LANGGRAPH_STREAM_GRAPH === 'on') {
    for await (const [mode, chunk] of await agent.stream(input, { ...config, streamMode: ['values', 'messages'] })) if (mode === 'values') messages = chunk.messages;
  } else messages = (await agent.invoke(input, config)).messages;
  const ai = messages.filter((m) => m.getType() === 'ai');
  reportUsage(ai.map((m) => ({ input: m.usage_metadata?.input_tokens, output: m.usage_metadata?.output_tokens, id: m.id })));
  answer(ai.at(-1).text);
} catch (e) {
  fail(e);
}
