// Executing the tool calls of one assistant message: parse, fingerprint, brake, run, observe.
// Bad calls (unknown tool, malformed JSON) become error observations the model can read.
import type { Stop } from '../brakes/stop-reason.ts';
import { fingerprint } from '../brakes/fingerprint.ts';
import type { ChatMessage, ToolCall } from '../models/chat.ts';
import type { AgentRun } from './agent.ts';

function parseArgs(raw: string): { ok: true; args: Record<string, unknown> } | { ok: false; error: string } {
  try {
    const v: unknown = JSON.parse(raw);
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return { ok: false, error: 'arguments must be a JSON object' };
    return { ok: true, args: v as Record<string, unknown> };
  } catch (e) {
    return { ok: false, error: `arguments are not valid JSON (${(e as Error).message})` };
  }
}

export function actionOf(call: ToolCall): { tool: string; fingerprint: string } {
  const parsed = parseArgs(call.function.arguments);
  return { tool: call.function.name, fingerprint: fingerprint(call.function.name, parsed.ok ? parsed.args : call.function.arguments) };
}

/** Runs each call in order, appending one tool message per call; returns a Stop if a brake blocks an action. */
export async function executeToolCalls(run: AgentRun, calls: ToolCall[], messages: ChatMessage[]): Promise<Stop | null> {
  for (const call of calls) {
    const stop = run.caller.checkAction(actionOf(call));
    if (stop) return stop;
    messages.push({ role: 'tool', tool_call_id: call.id, content: await observe(run, call) });
  }
  return null;
}

async function observe(run: AgentRun, call: ToolCall): Promise<string> {
  const name = call.function.name;
  const tool = run.tools.get(name);
  if (!tool) return `Error: unknown tool '${name}'. Available tools: ${run.tools.names.join(', ') || '(none)'}.`;
  const parsed = parseArgs(call.function.arguments);
  if (!parsed.ok) return `Error: ${name}: ${parsed.error}. Call the tool again with valid JSON arguments.`;
  run.clock.advance(tool.virtualMs);
  try {
    return await tool.run(parsed.args, run.signal);
  } catch (e) {
    return `Error: ${name} failed: ${(e as Error).message}`;
  }
}
