// Models that record into a cassette, and that answer from one.
import type { Cassette } from './cassette.ts';
import { requestKey } from './cassette.ts';
import { requestParts } from './request-parts.ts';
import { ModelError, type CallContext, type ChatModel, type ChatRequest, type ChatResult } from '../contracts/chat.ts';

/** Passes calls to a model and records every answered request/response pair. */
export class RecordingModel implements ChatModel {
  constructor(
    private readonly inner: ChatModel,
    /** The model spec as the sweep names it (what `--replay` looks answers up under). */
    private readonly spec: string,
    private readonly cassette: Cassette,
  ) {}

  get id(): string {
    return this.inner.id;
  }

  get simulated(): boolean {
    return this.inner.simulated;
  }

  async complete(request: ChatRequest, context: CallContext): Promise<ChatResult> {
    const result = await this.inner.complete(request, context);
    const key = requestKey(this.spec, request);
    this.cassette.add({
      key,
      model: this.spec,
      scenario: context.scenario,
      step: context.step,
      role: context.role,
      request: requestParts(request),
      message: result.message,
      usage: result.usage,
      latencyMs: result.latencyMs,
      finishReason: result.finishReason,
    });
    return result;
  }
}

/**
 * Answers only from a cassette, with the recorded usage and latency. The latency drives a virtual
 * clock, so a replayed sweep is deterministic. A request never recorded is an error, never a guess.
 */
export class ReplayModel implements ChatModel {
  readonly simulated = true;

  constructor(
    readonly id: string,
    /** The model spec the answers were recorded under. */
    private readonly recorded: string,
    private readonly cassette: Cassette,
  ) {}

  async complete(request: ChatRequest, context: CallContext): Promise<ChatResult> {
    const key = requestKey(this.recorded, request);
    const hit = this.cassette.find(key);
    if (!hit) {
      const why = this.cassette.explainMiss(this.recorded, context.scenario, context.step, requestParts(request));
      throw new ModelError(
        `replay: ${this.cassette.file} has no recorded answer for scenario '${context.scenario}' step ${context.step} (model ${this.recorded}, request ${key.slice(0, 12)}): ${why.text}; record this sweep again with --record`,
        0,
        {
          cassette: this.cassette.file,
          model: this.recorded,
          scenario: context.scenario,
          step: context.step,
          role: context.role,
          nearest_step: why.nearest_step,
          differs: why.differs,
          explanation: why.text,
        },
      );
    }
    const r = hit.response;
    return {
      message: structuredClone(r.message),
      usage: { ...r.usage },
      latencyMs: r.latency_ms,
      retries: 0,
      ...(r.finish_reason ? { finishReason: r.finish_reason } : {}),
    };
  }
}
