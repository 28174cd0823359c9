// loopbench/agent.mjs — written by `bench init` (loopbench-cli {{VERSION}}): the bridge between
// `bench run --agent-cmd "node loopbench/agent.mjs"` (or `agent_cmd:` in budgets.yaml) and your agent.
//
// loopbench starts this once per run, with OPENAI_BASE_URL and OPENAI_API_KEY pointing at its metering
// gateway (a virtual key, never the real one), and the scenario in LOOPBENCH_SYSTEM and LOOPBENCH_GOAL.
// The gateway brakes and meters every model call; this program only has to:
//   1. make its model calls with OPENAI_BASE_URL and OPENAI_API_KEY (the official SDKs read them),
//   2. print the final answer as its last line of stdout (or a JSON line {"answer": ...}),
//   3. exit 0 when it answered, non-zero when it failed (a refused call is HTTP 403, code loopbench_*).
// Replace runAgent() with a call into your own agent. As written it is a small ReAct loop with one
// tool, run_python (python3), so it runs as it is: `npx bench run --agent-cmd "node loopbench/agent.mjs"`.
import { execFileSync } from 'node:child_process';

const BASE_URL = (process.env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1').replace(/\/+$/, '');
const MODEL = process.env.LOOPBENCH_MODEL || 'gpt-4o-mini';
const SYSTEM = process.env.LOOPBENCH_SYSTEM || 'You solve tasks with tools.';
const GOAL = process.env.LOOPBENCH_GOAL || 'Compute the sum of squares of the integers from 1 to 100.';
const SEED = process.env.LOOPBENCH_SEED;

const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'run_python',
      description: 'Run Python 3 code and return what it prints.',
      parameters: {
        type: 'object',
        properties: { code: { type: 'string' } },
        required: ['code'],
        additionalProperties: false,
      },
    },
  },
];

async function chat(messages) {
  const res = await fetch(`${BASE_URL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${process.env.OPENAI_API_KEY ?? ''}` },
    body: JSON.stringify({ model: MODEL, messages, tools: TOOLS, ...(SEED ? { seed: Number(SEED) } : {}) }),
  });
  const body = await res.json();
  if (!res.ok)
    throw new Error(`${res.status} ${body.error?.code ?? ''}: ${body.error?.message ?? JSON.stringify(body)}`);
  return body.choices[0].message;
}

function runPython(code) {
  try {
    return (
      execFileSync('python3', ['-c', code], {
        encoding: 'utf8',
        timeout: 10_000,
        stdio: ['ignore', 'pipe', 'pipe'],
      }).slice(-2000) || '(no output)'
    );
  } catch (e) {
    return `Error: ${String(e.stderr || e.message).slice(-2000)}`;
  }
}

/** Your agent goes here: take the goal, return the final answer. */
async function runAgent(system, goal) {
  const messages = [
    { role: 'system', content: system },
    { role: 'user', content: goal },
  ];
  for (;;) {
    const message = await chat(messages);
    messages.push(message);
    if (!message.tool_calls?.length) return message.content ?? '';
    for (const call of message.tool_calls) {
      let result;
      try {
        result =
          call.function.name === 'run_python'
            ? runPython(JSON.parse(call.function.arguments).code ?? '')
            : `Error: unknown tool ${call.function.name}`;
      } catch (e) {
        result = `Error: bad arguments (${e.message})`;
      }
      messages.push({ role: 'tool', tool_call_id: call.id, content: result });
    }
  }
}

try {
  console.log(await runAgent(SYSTEM, GOAL));
} catch (e) {
  console.error(`agent stopped: ${e.message}`);
  process.exit(3);
}
