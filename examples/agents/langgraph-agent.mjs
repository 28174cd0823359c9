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

const llm = new ChatOpenAI({
  model: env.model,
  streaming: process.env.LANGGRAPH_STREAMING === 'on',
  configuration: { baseURL: process.env.OPENAI_BASE_URL },
  ...(env.seed !== undefined ? { modelKwargs: { seed: env.seed } } : {}),
});

const tools = [
  tool(executeCode, {
    name: 'execute_code',
    description: CODE_DESCRIPTION,
    schema: codeInput,
  }),
  tool(search, {
    name: 'search',
    description: SEARCH_DESCRIPTION,
    schema: searchInput,
  }),
];

const agent = createReactAgent({ llm, tools, prompt: env.system });
const input = { messages: [{ role: 'user', content: env.goal }] };
const config = { recursionLimit: 2 * env.maxTurns + 1 };
try {
  let messages;
  if (process.env.LANGGRAPH_STREAM_GRAPH === 'on') {
    for await (const [mode, chunk] of await agent.stream(input, { ...config, streamMode: ['values', 'messages'] }))
      if (mode === 'values') messages = chunk.messages;
  } else messages = (await agent.invoke(input, config)).messages;
  const ai = messages.filter((m) => m.getType() === 'ai');
  reportUsage(
    ai.map((m) => ({ input: m.usage_metadata?.input_tokens, output: m.usage_metadata?.output_tokens, id: m.id })),
  );
  answer(ai.at(-1).text);
} catch (e) {
  fail(e);
}
