// Message-list trajectories (`bench import --format messages`): a benchmark's or an app's dump of each
// conversation as its final list of OpenAI-format chat messages, one record per conversation, with an
// id and an outcome. Each assistant message is one model call whose input is every message before it
// (and the tool definitions); its tokens are counted here with loopbench's counter, as the provider
// would have billed them. What such a file cannot say (cached prefixes, retries, reasoning tokens,
// time) is recorded as unknown and said once.
import path from 'node:path';
import { z } from 'zod';
import type { AssistantMessage, ChatMessage, ToolSpec } from '../contracts/chat.ts';
import { REPLY_PRIMING, TokenCounter } from '../meter/tokens.ts';
import { issuePath } from '../scenario/yaml-file.ts';
import { atifArguments, NO_CLOCK, type AtifStep, type AtifTrajectory } from './atif-schema.ts';
import { fieldAt, valueAt } from './chatlog.ts';

export interface MessagesFormat {
  /** Dotted path of the message list in each record (`messages`, `traj`, `history`). */
  messagesField: string;
  /** Dotted path of the conversation's id; records without one are named by their place. */
  idField: string;
  /** Dotted path of the outcome: a boolean, or a number compared with `successMin`. */
  successField?: string;
  successMin?: number;
  /** Dotted path of the tool definitions sent, per record; or `tools` for every record. */
  toolsField?: string;
  tools?: ToolSpec[];
  /** The model the conversations were run against: its price, and the model of the configuration. */
  model: string;
  /** The agent (and default scenario) name. */
  agent: string;
}

/** Text content, or a list of parts of which the text ones count (images cannot be counted from the file). */
const Content = z
  .union([z.string(), z.array(z.looseObject({ type: z.string().optional(), text: z.string().optional() })), z.null()])
  .optional();
const Call = z.looseObject({
  id: z.string().optional(),
  function: z.looseObject({
    name: z.string().min(1),
    arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
  }),
});
const Message = z.looseObject({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
  content: Content,
  name: z.string().nullish(),
  tool_calls: z.array(Call).nullish(),
  tool_call_id: z.string().nullish(),
});
const Messages = z.array(Message).min(1);

const FunctionTool = z.looseObject({
  type: z.literal('function').optional(),
  function: z.looseObject({
    name: z.string().min(1),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});
/** The Responses API's flat spelling: `{ type: 'function', name, parameters }`. */
const FlatTool = z.looseObject({
  type: z.literal('function').optional(),
  name: z.string().min(1),
  description: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
});
export const Tools = z.array(z.union([FunctionTool, FlatTool]));

/** Tool definitions in the chat-completions spelling the counter reads. */
export function toolSpecs(tools: z.infer<typeof Tools>): ToolSpec[] {
  return tools.map((t): ToolSpec => {
    const f = (t as z.infer<typeof FunctionTool>).function ?? (t as z.infer<typeof FlatTool>);
    return {
      type: 'function',
      function: {
        name: f.name,
        ...(f.description !== undefined ? { description: f.description } : {}),
        ...(f.parameters ? { parameters: f.parameters } : {}),
      },
    };
  });
}

type RawMessage = z.infer<typeof Message>;

/** What the import assumed for a record, the same sentences every time (shown once). */
const NOTES = {
  counted: (model: string) =>
    `tokens are counted with loopbench's o200k_base counter and its chat-format overheads, priced as ${model}: the file holds no usage, so provider-side tokens (cached prefixes, reasoning, retries the app did not log) are not in these figures`,
  noTools: 'records without tool definitions are counted without them (their tokens are not in the input)',
  images: 'message parts that are not text (images, audio) are not counted',
  noId: (field: string) => `records without '${field}' are named by their place in the file (file:line or file[i])`,
  noOutcome: 'records without an outcome have success not measured',
  numberOutcome: (field: string) =>
    `'${field}' holds numbers: give --success-min N to count those at N or above as successes (until then, success is not measured)`,
  noClock: 'message lists hold no times: latency and elapsed time are 0, and timeout what-ifs are refused',
};

function contentText(c: RawMessage['content'], notes: Set<string>): string {
  if (typeof c === 'string') return c;
  if (!c) return '';
  if (c.some((p) => p.type !== undefined && p.type !== 'text' && p.type !== 'input_text' && p.type !== 'output_text'))
    notes.add(NOTES.images);
  return c.flatMap((p) => (typeof p.text === 'string' ? [p.text] : [])).join('\n');
}

/** A message in the shape the counter reads. */
function chatMessage(m: RawMessage, notes: Set<string>): ChatMessage {
  const content = contentText(m.content, notes);
  const name = m.name ?? undefined;
  switch (m.role) {
    case 'assistant': {
      const calls = (m.tool_calls ?? []).map((c, i) => ({
        id: c.id ?? `call_${i + 1}`,
        type: 'function' as const,
        function: {
          name: c.function.name,
          arguments:
            typeof c.function.arguments === 'string'
              ? c.function.arguments
              : JSON.stringify(c.function.arguments ?? {}),
        },
      }));
      return {
        role: 'assistant',
        content: content || (calls.length ? null : ''),
        ...(calls.length ? { tool_calls: calls } : {}),
        ...(name ? { name } : {}),
      };
    }
    case 'tool':
    case 'function':
      return { role: 'tool', content, tool_call_id: m.tool_call_id ?? name ?? '' };
    case 'developer':
      return { role: 'system', content, ...(name ? { name } : {}) };
    default:
      return { role: m.role, content, ...(name ? { name } : {}) };
  }
}

export interface RecordRead {
  trajectory?: AtifTrajectory;
  /** Why the record is not imported: `field: why`. */
  error?: string;
}

/**
 * One record → one trajectory: an agent step per assistant message with its counted tokens, the
 * other messages as the steps between. `where` names the record in errors (file:line).
 */
export function messagesTrajectory(
  record: unknown,
  where: string,
  f: MessagesFormat,
  counter: TokenCounter,
  notes: Set<string>,
): RecordRead {
  if (!record || typeof record !== 'object' || Array.isArray(record)) return { error: 'not a JSON object' };
  const raw = valueAt(record, f.messagesField);
  if (raw === undefined) return { error: `${f.messagesField}: missing (expected a list of messages)` };
  const parsed = Messages.safeParse(raw);
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    return {
      error: `${f.messagesField}${issuePath(i.path).startsWith('[') ? '' : '.'}${issuePath(i.path)}: ${i.message}`,
    };
  }
  let tools = f.tools;
  if (f.toolsField) {
    const t = valueAt(record, f.toolsField);
    if (t !== undefined && t !== null) {
      const pt = Tools.safeParse(t);
      if (!pt.success)
        return {
          error: `${f.toolsField}${issuePath(pt.error.issues[0]!.path).replace(/^\(top level\)$/, '')}: ${pt.error.issues[0]!.message}`,
        };
      tools = toolSpecs(pt.data);
    }
  }
  if (!tools?.length) notes.add(NOTES.noTools);
  const id = fieldAt(record, f.idField);
  if (id === undefined) notes.add(NOTES.noId(f.idField));
  const success = outcomeOf(record, f, notes);
  if (!parsed.data.some((m) => m.role === 'assistant'))
    return { error: `${f.messagesField}: no assistant message, so no model call` };

  const base = counter.tools(tools) + REPLY_PRIMING;
  let history = 0;
  const steps: AtifStep[] = [];
  for (const raw of parsed.data) {
    const m = chatMessage(raw, notes);
    const step = steps.length + 1;
    if (m.role === 'assistant') {
      const output = counter.produced(m as AssistantMessage);
      steps.push({
        step_id: step,
        source: 'agent',
        model_name: f.model,
        message: m.content ?? '',
        ...(m.tool_calls?.length
          ? {
              tool_calls: m.tool_calls.map((c) => ({
                tool_call_id: c.id,
                function_name: c.function.name,
                arguments: atifArguments(c.function.arguments),
              })),
            }
          : {}),
        metrics: { prompt_tokens: base + history, completion_tokens: output, cached_tokens: 0 },
      });
    } else steps.push({ step_id: step, source: m.role === 'system' ? 'system' : 'user', message: m.content ?? '' });
    history += counter.message(m);
  }
  notes.add(NOTES.counted(f.model));
  notes.add(NOTES.noClock);
  return {
    trajectory: {
      schema_version: 'ATIF-v1.6',
      session_id: id ?? path.basename(where),
      agent: { name: f.agent, version: 'message-list', model_name: f.model },
      steps,
      extra: { ...(success === null ? {} : { success }), [NO_CLOCK]: true },
    },
  };
}

function outcomeOf(record: unknown, f: MessagesFormat, notes: Set<string>): boolean | null {
  if (!f.successField) return null;
  const v = valueAt(record, f.successField);
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number' && Number.isFinite(v)) {
    if (f.successMin === undefined) {
      notes.add(NOTES.numberOutcome(f.successField));
      return null;
    }
    return v >= f.successMin;
  }
  notes.add(NOTES.noOutcome);
  return null;
}
