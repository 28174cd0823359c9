// One loopbench run → one ATIF trajectory (`bench export --format atif`). Every model call is an
// agent step with its metrics; with the run's transcript, the steps also carry the system prompt, the
// goal, the messages, the tool calls and their results. Pure: records in, an object out.
import type { ChatMessage, ToolCall } from '../contracts/chat.ts';
import type { RunRecord, StepRecord } from '../contracts/records.ts';
import { ATIF_VERSION, atifArguments, type AtifStep, type AtifToolCall, type AtifTrajectory } from './atif-schema.ts';
import { LOOPBENCH_KEY, SCENARIO_ORDER_KEY, type ExportedStep } from './exported.ts';
import { splitFingerprint } from './fingerprint-parse.ts';

/** The parts of a transcript (src/runner/transcript.ts) an export reads. */
export interface TranscriptView {
  messages: ChatMessage[];
  calls: Array<{ call: number; sent: number[]; received: number | null }>;
}

function toolCallsOf(step: StepRecord, received: ChatMessage | undefined): AtifToolCall[] | undefined {
  if (received?.role === 'assistant' && received.tool_calls?.length)
    return received.tool_calls.map((c: ToolCall) => ({
      tool_call_id: c.id,
      function_name: c.function.name,
      arguments: atifArguments(c.function.arguments),
    }));
  if (!step.fingerprint) return undefined;
  // No transcript: the fingerprints hold each action's tool and canonical arguments.
  return splitFingerprint(step.fingerprint).map((a, i) => ({
    tool_call_id: `call_${step.call}_${i + 1}`,
    function_name: a.tool,
    arguments: a.args,
  }));
}

function observationOf(calls: AtifToolCall[] | undefined, messages: ChatMessage[]): AtifStep['observation'] {
  if (!calls?.length) return undefined;
  const results = calls.flatMap((c) => {
    const m = messages.find((x) => x.role === 'tool' && x.tool_call_id === c.tool_call_id);
    return m ? [{ source_call_id: c.tool_call_id, content: m.content }] : [];
  });
  return results.length ? { results } : undefined;
}

const stamp = (run: RunRecord, elapsedMs: number): string | undefined => {
  const start = Date.parse(run.started_at);
  return Number.isFinite(start) ? new Date(start + elapsedMs).toISOString() : undefined;
};

/** `scenarios`: the sweep's scenario order (meta.json), kept so a re-import reports in the same order. */
export function toAtif(
  run: RunRecord,
  steps: readonly StepRecord[],
  transcript: TranscriptView | null,
  scenarios: readonly string[] = [],
): AtifTrajectory {
  const messages = transcript?.messages ?? [];
  const received = new Map(
    (transcript?.calls ?? []).map((c) => [c.call, c.received === null ? undefined : messages[c.received]]),
  );
  const out: AtifStep[] = [];
  const system = messages.find((m) => m.role === 'system');
  const goal = messages.find((m) => m.role === 'user');
  if (system) out.push({ step_id: out.length + 1, source: 'system', message: system.content });
  if (goal) out.push({ step_id: out.length + 1, source: 'user', message: goal.content });
  for (const s of steps) {
    const answer = received.get(s.call);
    const calls = toolCallsOf(s, answer);
    const { settings: _settings, ...own } = s;
    const record: ExportedStep = own;
    out.push({
      step_id: out.length + 1,
      // An imported call's own time and model where its record keeps them; otherwise the run's clock and model.
      ...((s.at ?? stamp(run, s.elapsed_ms)) ? { timestamp: s.at ?? stamp(run, s.elapsed_ms) } : {}),
      source: 'agent',
      model_name: s.model ?? run.settings.role_models?.[s.role] ?? run.settings.model,
      message: answer?.role === 'assistant' ? (answer.content ?? '') : '',
      ...(calls ? { tool_calls: calls } : {}),
      ...(observationOf(calls, messages) ? { observation: observationOf(calls, messages) } : {}),
      metrics: {
        prompt_tokens: s.input_tokens,
        completion_tokens: s.output_tokens,
        cached_tokens: s.cached_tokens,
        cost_usd: s.cost_usd,
      },
      extra: { [LOOPBENCH_KEY]: record },
    });
  }
  // ATIF needs a step; a run that stopped before its first call still says why.
  if (out.length === 0)
    out.push({
      step_id: 1,
      source: 'system',
      message: `the run stopped before its first model call: ${run.stop_detail}`,
    });
  return {
    schema_version: ATIF_VERSION,
    session_id: run.run_id,
    agent: { name: `loopbench-${run.agent}`, version: 'loopbench', model_name: run.settings.model },
    steps: out,
    notes: `loopbench run ${run.run_id} (${run.config_id}): stopped by ${run.stop_reason} — ${run.stop_detail}`,
    final_metrics: {
      total_prompt_tokens: run.input_tokens,
      total_completion_tokens: run.output_tokens,
      total_cached_tokens: run.cached_tokens,
      total_cost_usd: run.cost_usd,
      total_steps: out.length,
    },
    extra: {
      scenario: run.scenario,
      stop_reason: run.stop_reason,
      ...(run.success === null ? {} : { success: run.success }),
      ...(scenarios.length ? { [SCENARIO_ORDER_KEY]: scenarios } : {}),
      [LOOPBENCH_KEY]: run,
    },
  };
}
