// The OpenAI chat-completions wire format as bench serve, the gateway and the OpenAI provider read and write it: request validation
// (with errors in OpenAI's format), the completion object, and its streamed chunks. Pure: no I/O.
import { z } from 'zod';
import type {
  AssistantMessage,
  ChatMessage,
  ChatRequest,
  FinishReason,
  ResponseFormat,
  ToolSpec,
  Usage,
} from '../../contracts/chat.ts';
import { issuePath } from '../../scenario/yaml-file.ts';
import { wireError, type WireError } from '../error.ts';
import { pieces } from '../pieces.ts';

/** Text, or an array of content parts of which only text parts are read. */
export const Content = z
  .union([z.string(), z.array(z.looseObject({ type: z.string(), text: z.string().optional() }))])
  .nullable();

const ToolCall = z.looseObject({
  id: z.string(),
  type: z.literal('function'),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

export const Message = z.discriminatedUnion('role', [
  z.looseObject({ role: z.enum(['system', 'developer']), content: Content, name: z.string().optional() }),
  z.looseObject({ role: z.literal('user'), content: Content, name: z.string().optional() }),
  z.looseObject({
    role: z.literal('assistant'),
    content: Content.optional(),
    tool_calls: z.array(ToolCall).optional(),
    name: z.string().optional(),
  }),
  z.looseObject({ role: z.literal('tool'), content: Content, tool_call_id: z.string() }),
]);

export const Tool = z.looseObject({
  type: z.literal('function'),
  function: z.looseObject({
    name: z.string().min(1),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});

/** A JSON schema as a request carries it: an object (its content is the sim's to honour, not zod's). */
export const JsonSchemaObject = z.record(z.string(), z.unknown());

const ResponseFormatField = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_object') }),
  z.looseObject({
    type: z.literal('json_schema'),
    json_schema: z.looseObject({
      name: z.string().min(1),
      schema: JsonSchemaObject.optional(),
      strict: z.boolean().nullable().optional(),
    }),
  }),
]);

/** `text` is free text (none); a schema-less json_schema accepts any JSON object. */
export function responseFormat(
  name: string,
  schema: Record<string, unknown> | undefined,
  strict: boolean | null | undefined,
): ResponseFormat {
  return { type: 'json_schema', name, schema: schema ?? { type: 'object' }, ...(strict != null ? { strict } : {}) };
}

const ToolChoice = z.union([
  z.enum(['none', 'auto', 'required']),
  z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: z.string() }) }),
]);

/** Unknown fields are accepted (clients send many); the ones read here are checked. */
export const CompletionRequest = z.looseObject({
  model: z.string().min(1),
  messages: z.array(Message).min(1),
  tools: z.array(Tool).optional(),
  tool_choice: ToolChoice.optional(),
  stream: z.boolean().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
  seed: z.number().int().optional(),
  max_tokens: z.number().int().positive().nullable().optional(),
  max_completion_tokens: z.number().int().positive().nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  stop: z
    .union([z.string(), z.array(z.string()).max(4)])
    .nullable()
    .optional(),
  n: z.number().int().min(1).max(128).nullable().optional(),
  parallel_tool_calls: z.boolean().nullable().optional(),
  response_format: ResponseFormatField.nullable().optional(),
});
export type CompletionRequest = z.infer<typeof CompletionRequest>;

export type Parsed = { ok: true; request: CompletionRequest; chat: ChatRequest } | { ok: false; error: WireError };

/** Validates a decoded request body and turns it into the harness's ChatRequest. */
export function parseCompletionRequest(body: unknown): Parsed {
  const r = CompletionRequest.safeParse(body);
  if (!r.success) {
    const i = r.error.issues[0]!;
    const param = issuePath(i.path);
    return {
      ok: false,
      error: wireError(
        400,
        `Invalid value for '${param}': ${i.message}`,
        'invalid_request_error',
        param,
        'invalid_value',
      ),
    };
  }
  const req = r.data;
  const choice = req.tool_choice;
  if (choice && choice !== 'none' && !(req.tools && req.tools.length > 0))
    return {
      ok: false,
      error: wireError(
        400,
        "Invalid value for 'tool_choice': tool_choice is only allowed when 'tools' are specified.",
        'invalid_request_error',
        'tool_choice',
      ),
    };
  if (choice && typeof choice === 'object' && !req.tools!.some((t) => t.function.name === choice.function.name))
    return {
      ok: false,
      error: wireError(
        400,
        `Invalid value for 'tool_choice': no tool named '${choice.function.name}' in 'tools'.`,
        'invalid_request_error',
        'tool_choice',
      ),
    };
  const maxTokens = req.max_completion_tokens ?? req.max_tokens ?? undefined;
  const stop = typeof req.stop === 'string' ? [req.stop] : (req.stop ?? undefined);
  const rf = req.response_format;
  const format =
    rf?.type === 'json_object'
      ? { type: 'json_object' as const }
      : rf?.type === 'json_schema'
        ? responseFormat(rf.json_schema.name, rf.json_schema.schema, rf.json_schema.strict)
        : undefined;
  const chat: ChatRequest = {
    model: req.model,
    messages: req.messages.map(toChatMessage),
    ...(req.tools ? { tools: req.tools.map(toToolSpec) } : {}),
    ...(choice
      ? {
          tool_choice:
            typeof choice === 'string'
              ? choice
              : { type: 'function' as const, function: { name: choice.function.name } },
        }
      : {}),
    ...(stop?.length ? { stop } : {}),
    ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {}),
    ...(req.temperature != null ? { temperature: req.temperature } : {}),
    ...(req.seed !== undefined ? { seed: req.seed } : {}),
    ...(format ? { response_format: format } : {}),
  };
  return { ok: true, request: req, chat };
}

/** What the simulated model cannot do although a provider can: one answer per request, so `n` above 1 is refused rather than repeated. */
export function simRefusal(req: CompletionRequest): WireError | null {
  if ((req.n ?? 1) <= 1) return null;
  return wireError(
    400,
    `Invalid value for 'n': the simulated model writes one choice per request (n=1); got n=${req.n}. Send ${req.n} requests with different seeds instead.`,
    'invalid_request_error',
    'n',
    'unsupported_value',
  );
}

function text(c: z.infer<typeof Content> | undefined): string {
  if (c == null) return '';
  if (typeof c === 'string') return c;
  return c.map((p) => p.text ?? '').join('');
}

/** Only the standard fields, in the harness's order, so token counts match the in-process sim exactly. */
export function toChatMessage(m: z.infer<typeof Message>): ChatMessage {
  switch (m.role) {
    case 'system':
    case 'developer':
      return m.name
        ? { role: 'system', content: text(m.content), name: m.name }
        : { role: 'system', content: text(m.content) };
    case 'user':
      return m.name
        ? { role: 'user', content: text(m.content), name: m.name }
        : { role: 'user', content: text(m.content) };
    case 'tool':
      return { role: 'tool', tool_call_id: m.tool_call_id, content: text(m.content) };
    case 'assistant': {
      const a: AssistantMessage = { role: 'assistant', content: m.content == null ? null : text(m.content) };
      if (m.tool_calls?.length)
        a.tool_calls = m.tool_calls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.function.name, arguments: c.function.arguments },
        }));
      if (m.name) a.name = m.name;
      return a;
    }
  }
}

export function toToolSpec(t: z.infer<typeof Tool>): ToolSpec {
  const f = t.function;
  return {
    type: 'function',
    function: {
      name: f.name,
      ...(f.description !== undefined ? { description: f.description } : {}),
      ...(f.parameters ? { parameters: f.parameters } : {}),
    },
  };
}

export interface Completion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  system_fingerprint: string;
  choices: Array<{
    index: number;
    message: AssistantMessage & { refusal: null };
    finish_reason: FinishReason;
    logprobs: null;
  }>;
  usage?: WireUsage;
}

export interface WireUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number; cache_write_tokens?: number };
  completion_tokens_details: { reasoning_tokens: number };
}

export function wireUsage(u: Usage): WireUsage {
  return {
    prompt_tokens: u.prompt_tokens,
    completion_tokens: u.completion_tokens,
    total_tokens: u.prompt_tokens + u.completion_tokens,
    prompt_tokens_details: {
      cached_tokens: u.cached_tokens,
      ...(u.cache_write_tokens ? { cache_write_tokens: u.cache_write_tokens } : {}),
    },
    completion_tokens_details: { reasoning_tokens: u.reasoning_tokens ?? 0 },
  };
}

export const SYSTEM_FINGERPRINT = 'fp_loopbench_sim';

/** `finishReason` defaults to what the message shows (`tool_calls` or `stop`); `length` must be said. */
export function completion(
  id: string,
  model: string,
  created: number,
  message: AssistantMessage,
  usage: Usage,
  finishReason?: FinishReason,
): Completion {
  return {
    id,
    object: 'chat.completion',
    created,
    model,
    system_fingerprint: SYSTEM_FINGERPRINT,
    choices: [
      {
        index: 0,
        message: { ...message, refusal: null },
        finish_reason: finishReason ?? (message.tool_calls?.length ? 'tool_calls' : 'stop'),
        logprobs: null,
      },
    ],
    usage: wireUsage(usage),
  };
}

/**
 * The streamed form of a completion: a role chunk, content pieces, tool-call pieces, the finish
 * chunk, then (when asked for with stream_options.include_usage) a usage chunk with no choices.
 */
export function streamChunks(c: Completion, includeUsage: boolean): object[] {
  const choice = c.choices[0];
  const base = {
    id: c.id,
    object: 'chat.completion.chunk',
    created: c.created,
    model: c.model,
    system_fingerprint: c.system_fingerprint,
  };
  const chunk = (delta: object, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(includeUsage ? { usage: null } : {}),
  });
  const out: object[] = [];
  if (choice) {
    const m = choice.message;
    out.push(chunk({ role: 'assistant', content: '', refusal: null }));
    for (const p of pieces(m.content ?? '')) out.push(chunk({ content: p }));
    (m.tool_calls ?? []).forEach((call, index) => {
      out.push(
        chunk({
          tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }],
        }),
      );
      for (const p of pieces(call.function.arguments, 3))
        out.push(chunk({ tool_calls: [{ index, function: { arguments: p } }] }));
    });
    out.push(chunk({}, choice.finish_reason));
  }
  if (includeUsage && c.usage) out.push({ ...base, choices: [], usage: c.usage });
  return out;
}
