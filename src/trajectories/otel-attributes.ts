// The attribute names loopbench writes and reads on spans: the OpenTelemetry GenAI semantic conventions
// (gen_ai.*, development status; names as in the conventions' registry: cached and reasoning tokens are
// parts of input and output tokens, not additions), older spellings instrumentations still emit
// (gen_ai.system, gen_ai.usage.prompt_tokens, OpenInference's llm.token_count.*), and loopbench's own
// (loopbench.*) for what the conventions do not name yet: cost, stop reason, brake.

export const GEN_AI = {
  operation: 'gen_ai.operation.name',
  provider: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  responseId: 'gen_ai.response.id',
  seed: 'gen_ai.request.seed',
  toolDescription: 'gen_ai.tool.description',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  maxTokens: 'gen_ai.request.max_tokens',
  finishReasons: 'gen_ai.response.finish_reasons',
  conversation: 'gen_ai.conversation.id',
  agentName: 'gen_ai.agent.name',
  agentId: 'gen_ai.agent.id',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheRead: 'gen_ai.usage.cache_read.input_tokens',
  cacheCreation: 'gen_ai.usage.cache_creation.input_tokens',
  reasoning: 'gen_ai.usage.reasoning.output_tokens',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  toolArguments: 'gen_ai.tool.call.arguments',
  errorType: 'error.type',
} as const;

/** Spellings other instrumentations use for the same facts, read on import (first match wins). */
export const ALIASES = {
  provider: [GEN_AI.provider, 'gen_ai.system'],
  model: [GEN_AI.requestModel, GEN_AI.responseModel, 'llm.model_name', 'llm.request.model'],
  inputTokens: [GEN_AI.inputTokens, 'gen_ai.usage.prompt_tokens', 'llm.token_count.prompt', 'llm.usage.prompt_tokens'],
  outputTokens: [
    GEN_AI.outputTokens,
    'gen_ai.usage.completion_tokens',
    'llm.token_count.completion',
    'llm.usage.completion_tokens',
  ],
  cacheRead: [
    GEN_AI.cacheRead,
    'gen_ai.usage.cache_read_input_tokens',
    'gen_ai.usage.input_tokens.cached',
    'llm.token_count.prompt_details.cache_read',
  ],
  cacheCreation: [
    GEN_AI.cacheCreation,
    'gen_ai.usage.cache_creation_input_tokens',
    'llm.token_count.prompt_details.cache_write',
  ],
  reasoning: [GEN_AI.reasoning, 'gen_ai.usage.output_tokens.reasoning', 'llm.token_count.completion_details.reasoning'],
  toolName: [GEN_AI.toolName, 'tool.name'],
  toolArguments: [GEN_AI.toolArguments, 'tool.parameters', 'input.value'],
  conversation: [GEN_AI.conversation, 'session.id'],
  agentName: [GEN_AI.agentName, 'agent.name'],
  // Cost has no accepted GenAI name yet (semantic-conventions-genai PR #443 proposes gen_ai.usage.cost.*): loopbench writes its own, reads the proposal's too.
  cost: ['loopbench.cost_usd', 'gen_ai.usage.cost.total', 'gen_ai.usage.cost', 'llm.cost.total'],
} as const;

/** OpenInference names a span's kind in one attribute instead of an operation name. */
export const OPENINFERENCE_KIND = 'openinference.span.kind';

export const LB = {
  runId: 'loopbench.run_id',
  configId: 'loopbench.config_id',
  scenario: 'loopbench.scenario',
  stopReason: 'loopbench.stop_reason',
  stopDetail: 'loopbench.stop_detail',
  stopStep: 'loopbench.stop_step',
  brake: 'loopbench.brake',
  success: 'loopbench.success',
  costUsd: 'loopbench.cost_usd',
  cumCostUsd: 'loopbench.cum_cost_usd',
  step: 'loopbench.step',
  call: 'loopbench.call',
  round: 'loopbench.round',
  role: 'loopbench.role',
  /** The exported sweep's scenario order (its meta.json), so an import aggregates in the same plan order. */
  scenarios: 'loopbench.scenarios',
  /** The whole record as JSON, so an export imported again gives the very records back. */
  record: 'loopbench.record',
} as const;

/** The instrumentation scope loopbench's spans carry. */
export const SCOPE = 'loopbench';
