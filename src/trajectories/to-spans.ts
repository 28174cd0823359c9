// One loopbench run → OpenTelemetry GenAI spans, made by the OpenTelemetry SDK: an `invoke_agent`
// span for the run, a `chat` span per model call and an `execute_tool` span per action, in one trace
// per run. Times come from the records (the run's start plus each call's elapsed time and latency),
// ids from the run id (the same export twice gives the same trace and span ids). Every span also
// carries its loopbench record as JSON (`loopbench.record`), so `bench import --format otlp` of an
// export gives back the very records.
import { createHash } from 'node:crypto';
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Tracer } from '@opentelemetry/api';
import type { IdGenerator } from '@opentelemetry/sdk-trace-base';
import { providerPrefix, type ModelServers } from '../contracts/model-server.ts';
import type { RunRecord, StepRecord } from '../contracts/records.ts';
import { splitFingerprint } from './fingerprint-parse.ts';
import { errorTypeOf } from './error-type.ts';
import { GEN_AI, LB } from './otel-attributes.ts';

/** Ids handed out in the order spans are started: the next trace id, then span ids. */
export class PlannedIds implements IdGenerator {
  private traceId = '';
  private spanIds: string[] = [];

  plan(traceId: string, spanIds: string[]): void {
    this.traceId = traceId;
    this.spanIds = spanIds;
  }

  generateTraceId(): string {
    return this.traceId;
  }

  generateSpanId(): string {
    const id = this.spanIds.shift();
    if (!id) throw new Error('PlannedIds: more spans started than planned');
    return id;
  }
}

const hex = (text: string, chars: number) => {
  const h = createHash('sha256').update(text).digest('hex').slice(0, chars);
  // All-zero ids are invalid in OTLP; a hash that starts so is astronomically unlikely, but stay valid.
  return /^0+$/.test(h) ? `1${h.slice(1)}` : h;
};

/** The provider a configuration's model is, as gen_ai.provider.name spells it. */
export function providerOf(model: string): string {
  if (model.startsWith('openai:')) return 'openai';
  if (model.startsWith('sim')) return 'loopbench.sim';
  if (model.startsWith('replay:')) return 'loopbench.replay';
  return model.startsWith('imported:') ? 'unknown' : model;
}

/** The model name without loopbench's transport prefix (`openai:gpt-4o` → `gpt-4o`; a sim keeps its name). */
const modelName = (model: string) => model.replace(/^(openai|imported):/, '');

/** Fields other branches add to the records (reasoning and cache-write tokens), read when present. */
const optionalCount = (s: StepRecord, key: string): number => {
  const v = (s as unknown as Record<string, unknown>)[key];
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0;
};

/** The brake that stopped a run, as `limit=value`, when a brake did. */
function brakeOf(run: RunRecord): string | null {
  const limits = run.settings.limits as unknown as Record<string, number | null>;
  const key = {
    max_steps: 'max_steps',
    max_cost: 'max_cost_usd',
    timeout: 'timeout_s',
    spin: 'max_repeat',
    max_tokens: 'max_tokens',
    max_calls: 'max_calls',
    max_rounds: 'max_rounds',
  }[run.stop_reason as string];
  return key ? `${key}=${limits[key] ?? 'off'}` : null;
}

/** What the spans may say beyond the records. */
export interface SpanContext {
  /** The sweep's scenario order (its meta.json's). */
  scenarios?: readonly string[];
  /** The run's scenario's tool descriptions by tool name, when its definition is known. */
  tools?: ReadonlyMap<string, string>;
  /** Where each network provider's calls went (meta.json model_servers). */
  servers?: ModelServers;
}

/** Scenarios' tool descriptions (scripted tools carry one), by scenario id, then tool name. */
export function toolDescriptionsOf(
  scenarios: ReadonlyArray<{ id: string; tools: ReadonlyArray<{ name: string; description?: string }> }>,
): Map<string, Map<string, string>> {
  return new Map(
    scenarios.map((s) => [
      s.id,
      new Map(s.tools.flatMap((t) => (t.description ? [[t.name, t.description] as const] : []))),
    ]),
  );
}

/** The seed a built-in loop sent with each call (agents/caller.ts); an external agent's or an imported run's is not known. */
const seedOf = (run: RunRecord): number | null =>
  run.agent !== 'external' && !run.settings.model.startsWith('imported:') && Number.isInteger(run.settings.seed)
    ? run.settings.seed
    : null;

/** Writes the spans of one run through `tracer` (whose provider uses `ids`). */
export function emitRunSpans(
  tracer: Tracer,
  ids: PlannedIds,
  run: RunRecord,
  steps: readonly StepRecord[],
  c: SpanContext = {},
): void {
  const scenarios = c.scenarios ?? [];
  const seed = seedOf(run);
  const start = Date.parse(run.started_at);
  const t0 = Number.isFinite(start) ? start : 0;
  const end = t0 + run.elapsed_ms;
  const actions = steps.map((s) => (s.fingerprint ? splitFingerprint(s.fingerprint) : []));
  const spanIds = [
    hex(`${run.run_id}/run`, 16),
    ...steps.flatMap((s, i) => [
      hex(`${run.run_id}/call/${s.call}`, 16),
      ...actions[i]!.map((_, k) => hex(`${run.run_id}/call/${s.call}/tool/${k}`, 16)),
    ]),
  ];
  ids.plan(hex(run.run_id, 32), spanIds);
  const provider = providerOf(run.settings.model);
  const root = tracer.startSpan(
    `invoke_agent ${run.scenario}`,
    {
      kind: SpanKind.INTERNAL,
      startTime: t0,
      attributes: {
        [GEN_AI.operation]: 'invoke_agent',
        [GEN_AI.provider]: provider,
        [GEN_AI.agentName]: run.scenario,
        [GEN_AI.agentId]: run.config_id,
        [GEN_AI.conversation]: run.run_id,
        [GEN_AI.requestModel]: modelName(run.settings.model),
        [GEN_AI.inputTokens]: run.input_tokens,
        [GEN_AI.outputTokens]: run.output_tokens,
        ...(run.cached_tokens > 0 ? { [GEN_AI.cacheRead]: run.cached_tokens } : {}),
        ...(run.stop_reason === 'error' ? { [GEN_AI.errorType]: errorTypeOf(run.stop_detail) } : {}),
        [LB.runId]: run.run_id,
        [LB.configId]: run.config_id,
        [LB.scenario]: run.scenario,
        [LB.stopReason]: run.stop_reason,
        [LB.stopDetail]: run.stop_detail,
        [LB.stopStep]: run.stop_step,
        ...(brakeOf(run) ? { [LB.brake]: brakeOf(run)! } : {}),
        ...(run.success === null ? {} : { [LB.success]: run.success }),
        [LB.costUsd]: run.cost_usd,
        ...(scenarios.length ? { [LB.scenarios]: [...scenarios] } : {}),
        [LB.record]: JSON.stringify(run),
      },
    },
    context.active(),
  );
  if (run.stop_reason === 'error') root.setStatus({ code: SpanStatusCode.ERROR, message: run.stop_detail });
  const parent = trace.setSpan(context.active(), root);
  steps.forEach((s, i) => {
    const callEnd = t0 + s.elapsed_ms;
    const callStart = callEnd - s.latency_ms;
    const spec = run.settings.role_models?.[s.role] ?? run.settings.model;
    const model = modelName(spec);
    const prefix = providerPrefix(spec);
    const server = prefix ? c.servers?.[prefix] : undefined;
    const cacheWrite = optionalCount(s, 'cache_write_tokens');
    const reasoning = optionalCount(s, 'reasoning_tokens');
    const { settings: _settings, ...own } = s;
    void _settings;
    const attributes: Attributes = {
      [GEN_AI.operation]: 'chat',
      [GEN_AI.provider]: provider,
      [GEN_AI.requestModel]: model,
      // The records name one model per call: the one that answered it.
      [GEN_AI.responseModel]: model,
      // loopbench's own id of the call (the records keep no provider response id).
      [GEN_AI.responseId]: `${run.run_id}/call/${s.call}`,
      ...(seed !== null ? { [GEN_AI.seed]: seed } : {}),
      ...(server ? { [GEN_AI.serverAddress]: server.address, [GEN_AI.serverPort]: server.port } : {}),
      [GEN_AI.conversation]: run.run_id,
      ...(run.settings.max_output_tokens > 0 ? { [GEN_AI.maxTokens]: run.settings.max_output_tokens } : {}),
      ...(s.error ? {} : { [GEN_AI.finishReasons]: [s.action ? 'tool_calls' : 'stop'] }),
      [GEN_AI.inputTokens]: s.input_tokens,
      [GEN_AI.outputTokens]: s.output_tokens,
      ...(s.cached_tokens > 0 ? { [GEN_AI.cacheRead]: s.cached_tokens } : {}),
      ...(cacheWrite ? { [GEN_AI.cacheCreation]: cacheWrite } : {}),
      ...(reasoning ? { [GEN_AI.reasoning]: reasoning } : {}),
      ...(s.error ? { [GEN_AI.errorType]: errorTypeOf(s.error) } : {}),
      [LB.runId]: run.run_id,
      [LB.step]: s.step,
      [LB.call]: s.call,
      [LB.round]: s.round,
      [LB.role]: s.role,
      [LB.costUsd]: s.cost_usd,
      [LB.cumCostUsd]: s.cum_cost_usd,
      [LB.record]: JSON.stringify(own),
    };
    const chat = tracer.startSpan(`chat ${model}`, { kind: SpanKind.CLIENT, startTime: callStart, attributes }, parent);
    if (s.error) chat.setStatus({ code: SpanStatusCode.ERROR, message: s.error });
    chat.end(callEnd);
    // A tool runs between its call's answer and the next call (or the run's end): the records time no more finely.
    const toolEnd = i + 1 < steps.length ? t0 + steps[i + 1]!.elapsed_ms - steps[i + 1]!.latency_ms : end;
    actions[i]!.forEach((a, k) => {
      const tool = tracer.startSpan(
        `execute_tool ${a.tool}`,
        {
          kind: SpanKind.INTERNAL,
          startTime: callEnd,
          attributes: {
            [GEN_AI.operation]: 'execute_tool',
            [GEN_AI.toolName]: a.tool,
            [GEN_AI.toolCallId]: `call_${s.call}_${k + 1}`,
            [GEN_AI.toolType]: 'function',
            ...(c.tools?.get(a.tool) ? { [GEN_AI.toolDescription]: c.tools.get(a.tool)! } : {}),
            [GEN_AI.toolArguments]: typeof a.args === 'string' ? a.args : JSON.stringify(a.args),
            [LB.runId]: run.run_id,
            [LB.call]: s.call,
          },
        },
        parent,
      );
      tool.end(Math.max(callEnd, toolEnd));
    });
  });
  root.end(Math.max(end, t0));
}
