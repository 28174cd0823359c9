// The coding agents' own shell tools on the sim: offered Claude Code's or Codex CLI's tools (as their
// captured requests carry them), the sim does its actions through the client's shell tool, as a command
// a real shell runs — tiny-agent's Python through python3 — and answers with what the shell printed.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChatMessage, ToolSpec } from '../src/contracts/chat.ts';
import { TokenCounter } from '../src/meter/tokens.ts';
import { mappingNotes, shellCommand } from '../src/sim/offered-tools.ts';
import { loadProfile } from '../src/sim/profile.ts';
import { SimModel } from '../src/sim/sim-model.ts';

const counter = new TokenCounter();
const FIXTURES = path.join(import.meta.dirname, 'fixtures', 'coding-clients');
type Json = Record<string, unknown>;
const body = (file: string) => (JSON.parse(fs.readFileSync(path.join(FIXTURES, file), 'utf8')) as { body: Json }).body;

/** Claude Code's tools (Anthropic spelling: input_schema, no type) as the sim is offered them. */
const CLAUDE_TOOLS: ToolSpec[] = (body('claude-code-messages-request.json').tools as Json[]).map((t) => ({
  type: 'function',
  function: { name: t.name as string, description: t.description as string, parameters: t.input_schema as Json },
}));
/** Codex CLI's function tools (its namespace and web_search tools name no function the sim could call). */
const CODEX_TOOLS: ToolSpec[] = (body('codex-responses-request.json').tools as Json[])
  .filter((t) => t.type === 'function')
  .map((t) => ({ type: 'function', function: { name: t.name as string, parameters: t.parameters as Json } }));
const SHELL_TOOL: ToolSpec = {
  type: 'function',
  function: {
    name: 'shell',
    parameters: {
      type: 'object',
      properties: { command: { type: 'array', items: { type: 'string' } } },
      required: ['command'],
    },
  },
};

/** The command line a shell tool's arguments hold. */
function commandOf(name: string, args: Json): string {
  if (name === 'Bash') return args.command as string;
  if (name === 'exec_command') return args.cmd as string;
  const argv = args.command as string[];
  expect(argv.slice(0, 2)).toEqual(['bash', '-lc']);
  return argv[2]!;
}

/** tiny-agent against the sim with `tools` offered, each command run by a real bash, until it answers. */
async function loop(
  tools: ToolSpec[],
): Promise<{ commands: Array<{ tool: string; command: string; output: string }>; answer: string }> {
  const p = loadProfile('tiny-agent');
  const sim = new SimModel('sim:tiny-agent', p, counter, { promptCache: false });
  const messages: ChatMessage[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'compute the sum of squares 1..100 and verify it' },
  ];
  const commands: Array<{ tool: string; command: string; output: string }> = [];
  for (let i = 0; i < 8; i++) {
    const { message } = await sim.complete(
      { model: sim.id, messages, tools, seed: 2 },
      { runId: 'r', scenario: 's', step: i + 1, round: 0, role: 'act' },
    );
    messages.push(message);
    if (!message.tool_calls?.length) return { commands, answer: message.content ?? '' };
    for (const c of message.tool_calls) {
      const command = commandOf(c.function.name, JSON.parse(c.function.arguments) as Json);
      const output = execFileSync('bash', ['-c', command], { encoding: 'utf8' });
      commands.push({ tool: c.function.name, command, output });
      messages.push({ role: 'tool', tool_call_id: c.id, content: output });
    }
  }
  throw new Error('the sim never answered');
}

describe("the sim drives the client's own shell tool", () => {
  it.each([
    ['Claude Code', CLAUDE_TOOLS, 'Bash'],
    ['Codex CLI', CODEX_TOOLS, 'exec_command'],
    ['a shell tool taking argv', [SHELL_TOOL], 'shell'],
  ] as const)(
    '%s: every action is a command a real shell runs, printing 338350, and the answer says it',
    async (_, tools, shell) => {
      const { commands, answer } = await loop([...tools]);
      expect(commands.length).toBeGreaterThanOrEqual(2);
      for (const c of commands) {
        expect(c.tool).toBe(shell);
        expect(c.command).toMatch(/^python3 -c '/);
        expect(c.output.trim()).toBe('338350');
      }
      expect(answer).toContain('338350');
    },
  );

  it('quotes what a shell would otherwise split or expand; another tool is echoed', () => {
    const code = "print('it''s $HOME')";
    expect(execFileSync('bash', ['-c', shellCommand('run_python', { code })], { encoding: 'utf8' })).toBe(
      'its $HOME\n',
    );
    expect(execFileSync('bash', ['-c', shellCommand('search', { query: "a 'b' $c" })], { encoding: 'utf8' })).toBe(
      `search {"query":"a 'b' $c"}\n`,
    );
  });

  it('says once how it plays the profile on the shell', () => {
    expect(mappingNotes(loadProfile('tiny-agent'), CLAUDE_TOOLS)).toEqual([
      "run_python is not among your tools: played on your Bash as a shell command (python3 -c '<code>')",
    ]);
  });
});
