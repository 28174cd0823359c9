// Executing the tool calls of one assistant message: parse, fingerprint, brake, run, observe.
// Bad calls (unknown tool, malformed JSON) become error observations the model can read.
import type { Action } from '../brakes/brake.ts';
import type { Stop } from '../contracts/stop-reason.ts';
import { argsJson, fingerprintOf } from '../contracts/fingerprint.ts';
import type { ChatMessage, ToolCall } from '../contracts/chat.ts';
import type { AgentRun } from './agent.ts';

function parseArgs(raw: string): { ok: true; args: Record<string, unknown> } | { ok: false; error: string } {
  try {
    const v: unknown = JSON.parse(raw);
    if (v === null || typeof v !== 'object' || Array.isArray(v))
      return { ok: false, error: 'arguments must be a JSON object' };
    return { ok: true, args: v as Record<string, unknown> };
  } catch (e) {
    return { ok: false, error: `arguments are not valid JSON (${(e as Error).message})` };
  }
}

/** A tool call with its arguments parsed once: the step record, the spin brake and the tool all use it. */
export interface ParsedCall extends Action {
  call: ToolCall;
  args: ReturnType<typeof parseArgs>;
}

export function parseCall(call: ToolCall): ParsedCall {
  const args = parseArgs(call.function.arguments);
  const json = argsJson(args.ok ? args.args : call.function.arguments);
  return { call, args, tool: call.function.name, fingerprint: fingerprintOf(call.function.name, json), argsJson: json };
}

/** How an observation says the action failed: an `Error: …` line, or a Python traceback's last line; null when it did not. */
export function failureOf(observation: string): string | null {
  if (observation.startsWith('Error:')) return observation.split('\n', 1)[0]!;
  if (!observation.includes('Traceback (most recent call last)')) return null;
  const lines = observation.trimEnd().split('\n');
  return lines[lines.length - 1]!.trim();
}

/** Runs each call in order, appending one tool message per call; returns a Stop if a brake blocks an action. */
export async function executeToolCalls(
  run: AgentRun,
  calls: readonly ParsedCall[],
  messages: ChatMessage[],
): Promise<Stop | null> {
  for (const parsed of calls) {
    const stop = run.caller.checkAction(parsed);
    if (stop) return stop;
    const observation = await observe(run, parsed);
    run.caller.observed(parsed, observation, failureOf(observation));
    messages.push({ role: 'tool', tool_call_id: parsed.call.id, content: observation });
  }
  return null;
}

async function observe(run: AgentRun, { call, args, fingerprint }: ParsedCall): Promise<string> {
  const name = call.function.name;
  const tool = run.tools.get(name);
  if (!tool) return `Error: unknown tool '${name}'. Available tools: ${run.tools.names.join(', ') || '(none)'}.`;
  if (!args.ok) return `Error: ${name}: ${args.error}. Call the tool again with valid JSON arguments.`;
  run.clock.advance(tool.virtualMs);
  try {
    return await tool.run(args.args, run.signal, { repeat: run.caller.state.repeats.get(fingerprint) ?? 1 });
  } catch (e) {
    return `Error: ${name} failed: ${(e as Error).message}`;
  }
}
