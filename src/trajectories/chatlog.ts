// OpenAI-format chat logs (JSON lines, one model call each) → ATIF trajectories, one per run, so they
// import through the same path as ATIF files. Two line shapes are read:
//   - a request/response pair, as gateways export them: `{ request: { model, messages, tools? },
//     response: { choices: [{ message }], usage }, ... }` (usage.prompt_tokens_details.cached_tokens read too);
//   - `bench serve --log` usage lines: `{ time, model, prompt_tokens, completion_tokens, cached_tokens,
//     tool_calls: [names], latency_ms }` (tool names without arguments: no spin what-if from these).
// Lines are grouped into runs by a field the user names (a dotted path, e.g. `metadata.run_id`).
import { z } from 'zod';
import { TokenCountSchema as Count } from '../contracts/counts.ts';
import { issuePath } from '../scenario/yaml-file.ts';
import { ARGUMENTS_UNKNOWN, atifArguments, type AtifStep, type AtifTrajectory } from './atif-schema.ts';

const Usage = z.looseObject({
  prompt_tokens: Count,
  completion_tokens: Count,
  prompt_tokens_details: z.looseObject({ cached_tokens: Count.nullish() }).nullish(),
});
const ToolCall = z.looseObject({
  id: z.string().optional(),
  function: z.looseObject({ name: z.string(), arguments: z.string().optional() }),
});
const PairLine = z.looseObject({
  request: z.looseObject({
    model: z.string().optional(),
    messages: z.array(z.looseObject({ role: z.string(), content: z.unknown().optional() })).optional(),
  }),
  response: z.looseObject({
    model: z.string().optional(),
    created: z.number().optional(),
    choices: z
      .array(
        z.looseObject({
          message: z.looseObject({ content: z.string().nullish(), tool_calls: z.array(ToolCall).nullish() }),
        }),
      )
      .min(1),
    usage: Usage,
  }),
});
const UsageLine = z.looseObject({
  time: z.string().optional(),
  model: z.string().nullish(),
  status: z.number().optional(),
  prompt_tokens: Count,
  completion_tokens: Count,
  cached_tokens: Count.optional(),
  tool_calls: z.array(z.string()).optional(),
  latency_ms: z.number().nonnegative().optional(),
});

/** The value at a dotted path (`metadata.run_id`); undefined when absent. */
export function valueAt(value: unknown, dotted: string): unknown {
  let v: unknown = value;
  for (const k of dotted.split('.')) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

/** The value at a dotted path, as text; undefined when absent. */
export function fieldAt(value: unknown, dotted: string): string | undefined {
  const v = valueAt(value, dotted);
  return v === undefined || v === null ? undefined : typeof v === 'string' ? v : JSON.stringify(v);
}

/** One call as an ATIF agent step (its step_id is set when the run is assembled). */
function stepOf(line: unknown): { step: AtifStep; model?: string } | { error: string } {
  const pair = PairLine.safeParse(line);
  if (pair.success) {
    const { request, response } = pair.data;
    const message = response.choices[0]!.message;
    const calls = message.tool_calls ?? [];
    return {
      // The model the request named (the pricing table's names), else the one the provider answered as.
      model: request.model ?? response.model,
      step: {
        step_id: 0,
        source: 'agent',
        ...(response.created !== undefined ? { timestamp: new Date(response.created * 1000).toISOString() } : {}),
        message: message.content ?? '',
        ...(calls.length
          ? {
              tool_calls: calls.map((c, i) => ({
                tool_call_id: c.id ?? `call_${i + 1}`,
                function_name: c.function.name,
                arguments: atifArguments(c.function.arguments ?? '{}'),
              })),
            }
          : {}),
        metrics: {
          prompt_tokens: response.usage.prompt_tokens,
          completion_tokens: response.usage.completion_tokens,
          cached_tokens: response.usage.prompt_tokens_details?.cached_tokens ?? 0,
        },
      },
    };
  }
  const usage = UsageLine.safeParse(line);
  if (usage.success) {
    const u = usage.data;
    if (u.status !== undefined && u.status !== 200) return { error: `a failed call (status ${u.status}): not a step` };
    const names = u.tool_calls ?? [];
    return {
      model: u.model ?? undefined,
      step: {
        step_id: 0,
        source: 'agent',
        ...(u.time ? { timestamp: u.time } : {}),
        message: '',
        // A usage log names the tools but not their arguments: each call's arguments are unknown.
        ...(names.length
          ? {
              tool_calls: names.map((n, i) => ({ tool_call_id: `call_${i + 1}`, function_name: n, arguments: {} })),
              extra: { [ARGUMENTS_UNKNOWN]: true },
            }
          : {}),
        metrics: {
          prompt_tokens: u.prompt_tokens,
          completion_tokens: u.completion_tokens,
          cached_tokens: u.cached_tokens ?? 0,
        },
      },
    };
  }
  const i = pair.error.issues[0]!;
  return { error: `neither a request/response pair nor a usage line (${issuePath(i.path)}: ${i.message})` };
}

export interface ChatLogRead {
  trajectories: AtifTrajectory[];
  /** One per line that was not imported: `file:line: why`. */
  skipped: string[];
}

/** Groups the lines of one or more chat logs into runs by `groupBy`, keeping line order within a run. */
export function chatLogTrajectories(
  files: ReadonlyArray<{ file: string; text: string }>,
  groupBy: string,
  agent: string,
): ChatLogRead {
  const runs = new Map<string, { model?: string; steps: Array<AtifStep> }>();
  const skipped: string[] = [];
  for (const { file, text } of files) {
    text.split('\n').forEach((raw, i) => {
      if (raw.trim() === '') return;
      const where = `${file}:${i + 1}`;
      let line: unknown;
      try {
        line = JSON.parse(raw);
      } catch {
        return skipped.push(`${where}: not JSON`);
      }
      const run = fieldAt(line, groupBy);
      if (run === undefined) return skipped.push(`${where}: no '${groupBy}' field to group it into a run by`);
      const s = stepOf(line);
      if ('error' in s) return skipped.push(`${where}: ${s.error}`);
      let r = runs.get(run);
      if (!r) runs.set(run, (r = { steps: [] }));
      r.model ??= s.model;
      r.steps.push(s.step);
    });
  }
  const trajectories = [...runs].map(([id, r]): AtifTrajectory => ({
    schema_version: 'ATIF-v1.6',
    session_id: id,
    agent: { name: agent, version: 'chat-log', ...(r.model ? { model_name: r.model } : {}) },
    steps: r.steps.map((s, i) => ({ ...s, step_id: i + 1 })),
  }));
  return { trajectories, skipped };
}
