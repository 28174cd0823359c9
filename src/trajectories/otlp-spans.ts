// OTLP trace data (OTLP/JSON, the shape the protobuf decoder gives too) → compact span rows: only the
// spans that are GenAI operations, only the attributes loopbench reads. A row is what an import keeps
// per span until its trace is complete, so it is small and flat.
import { ALIASES, GEN_AI, LB, OPENINFERENCE_KIND } from './otel-attributes.ts';

/** What a span is to a run. */
export type SpanRole = 'agent' | 'chat' | 'tool';

export interface SpanRow {
  trace: string;
  span: string;
  parent: string;
  role: SpanRole;
  name: string;
  startMs: number;
  endMs: number;
  error: string | null;
  /** Attributes read by the importer, by loopbench's own key (see `pick`). */
  a: Record<string, string | number | boolean | string[]>;
  /** The resource's service.name, a fallback agent name. */
  service?: string;
}

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
};
type KeyValue = { key: string; value?: AnyValue };

function valueOf(v: AnyValue | undefined): string | number | boolean | string[] | undefined {
  if (!v) return undefined;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return Number(v.doubleValue);
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map((x) => String(valueOf(x) ?? ''));
  return undefined;
}

const CHAT_OPS = new Set(['chat', 'text_completion', 'generate_content']);

/** The role of a span from its attributes, or null for spans that are not GenAI operations. */
function roleOf(attrs: Map<string, unknown>): SpanRole | null {
  const op = attrs.get(GEN_AI.operation);
  if (op === 'invoke_agent' || op === 'create_agent') return op === 'invoke_agent' ? 'agent' : null;
  if (typeof op === 'string' && CHAT_OPS.has(op)) return 'chat';
  if (op === 'execute_tool') return 'tool';
  const kind = attrs.get(OPENINFERENCE_KIND);
  if (kind === 'LLM') return 'chat';
  if (kind === 'TOOL') return 'tool';
  if (kind === 'AGENT') return 'agent';
  // Older instrumentations (OpenLLMetry before the operation name) mark model calls by their usage.
  if (ALIASES.inputTokens.some((k) => attrs.has(k)) && ALIASES.outputTokens.some((k) => attrs.has(k))) return 'chat';
  return null;
}

/** The attributes kept, under one key each: the first of their spellings that a span has. */
const PICK: Record<string, readonly string[]> = {
  provider: ALIASES.provider,
  model: ALIASES.model,
  input: ALIASES.inputTokens,
  output: ALIASES.outputTokens,
  cached: ALIASES.cacheRead,
  reasoning: ALIASES.reasoning,
  cacheWrite: ALIASES.cacheCreation,
  tool: ALIASES.toolName,
  args: ALIASES.toolArguments,
  toolCallId: [GEN_AI.toolCallId],
  conversation: ALIASES.conversation,
  agent: ALIASES.agentName,
  cost: ALIASES.cost,
  finish: [GEN_AI.finishReasons],
  output_messages: ['gen_ai.output.messages'],
  record: [LB.record],
  stopReason: [LB.stopReason],
  stopDetail: [LB.stopDetail],
  success: [LB.success],
  scenario: [LB.scenario],
  scenarios: [LB.scenarios],
};

/** Hex ids: OTLP/JSON has them hex already; anything else (base64 from a decoder) is turned to hex. */
export const hexId = (v: unknown): string => {
  if (typeof v !== 'string' || v === '') return '';
  return /^[0-9a-fA-F]+$/.test(v) && (v.length === 16 || v.length === 32)
    ? v.toLowerCase()
    : Buffer.from(v, 'base64').toString('hex');
};

const msOf = (nanos: unknown): number => {
  if (typeof nanos === 'number') return nanos / 1e6;
  if (typeof nanos === 'string' && /^\d+$/.test(nanos)) return Number(BigInt(nanos) / 1000n) / 1000;
  return NaN;
};

/** One OTLP span (OTLP/JSON object) as a row, or null when it is not a GenAI operation. */
export function spanRow(span: Record<string, unknown>, service: string | undefined): SpanRow | null {
  const attrs = new Map<string, unknown>();
  for (const kv of (span.attributes as KeyValue[] | undefined) ?? [])
    if (kv && typeof kv.key === 'string') attrs.set(kv.key, valueOf(kv.value));
  const role = roleOf(attrs);
  if (!role) return null;
  const a: SpanRow['a'] = {};
  for (const [key, names] of Object.entries(PICK)) {
    const name = names.find((n) => attrs.get(n) !== undefined);
    if (name) a[key] = attrs.get(name) as SpanRow['a'][string];
  }
  const status = span.status as { code?: number | string; message?: string } | undefined;
  const failed = status?.code === 2 || status?.code === 'STATUS_CODE_ERROR';
  const errorType = attrs.get(GEN_AI.errorType);
  return {
    trace: hexId(span.traceId),
    span: hexId(span.spanId),
    parent: hexId(span.parentSpanId),
    role,
    name: typeof span.name === 'string' ? span.name : '',
    startMs: msOf(span.startTimeUnixNano),
    endMs: msOf(span.endTimeUnixNano),
    // error.type is a short code (`500`, `timeout`); the status message, when there is one, says more.
    error: failed
      ? status?.message || (typeof errorType === 'string' ? errorType : 'error')
      : typeof errorType === 'string'
        ? errorType
        : null,
    a,
    ...(service ? { service } : {}),
  };
}

/** The service.name of a resource (OTLP/JSON `resource` object). */
export function serviceOf(resource: unknown): string | undefined {
  const attrs = (resource as { attributes?: KeyValue[] } | undefined)?.attributes ?? [];
  const v = valueOf(attrs.find((kv) => kv?.key === 'service.name')?.value);
  return typeof v === 'string' ? v : undefined;
}
