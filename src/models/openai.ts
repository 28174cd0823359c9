// A ChatModel on the official `openai` SDK, for OpenAI and any compatible server (vLLM, llama.cpp,
// Ollama, LiteLLM, `bench serve`). Timeouts and retries are the SDK's own (429 honours retry-after,
// 5xx, connection errors and timeouts back off); we only count the attempts and read the usage.
import type OpenAI from 'openai';
import {
  ModelError,
  type AssistantMessage,
  type CallContext,
  type ChatModel,
  type ChatRequest,
  type ChatResult,
  type Usage,
  type FinishReason,
} from '../contracts/chat.ts';
import { readCompletion } from '../wire/chat/spelling.ts';
import { usageFrom } from '../wire/usage.ts';
import { redact } from './redact.ts';

export interface OpenAIOptions {
  apiKey: string;
  baseURL?: string;
  timeoutMs: number;
  maxRetries: number;
}

type Sdk = typeof import('openai').default;
let sdk: Promise<Sdk> | undefined;
/** The SDK loads with the first real call: ~14 MB that simulated sweeps, and each of their worker threads, never need. */
const loadSdk = () => (sdk ??= import('openai').then((m) => m.default));

export class OpenAIModel implements ChatModel {
  readonly simulated = false;
  private client: OpenAI | undefined;
  /** HTTP attempts of the call in flight. One model serves one run, whose calls are sequential. */
  private attempts = 0;

  constructor(
    /** `openai:<model>`. */
    readonly id: string,
    private readonly model: string,
    private readonly options: OpenAIOptions,
  ) {}

  private connect(OpenAISdk: Sdk): OpenAI {
    return new OpenAISdk({
      apiKey: this.options.apiKey,
      baseURL: this.options.baseURL,
      timeout: this.options.timeoutMs,
      maxRetries: this.options.maxRetries,
      fetch: (url, init) => {
        this.attempts++;
        return fetch(url, init);
      },
    });
  }

  async complete(request: ChatRequest, context: CallContext): Promise<ChatResult> {
    const OpenAISdk = await loadSdk();
    this.client ??= this.connect(OpenAISdk);
    this.attempts = 0;
    const started = performance.now();
    let response: OpenAI.Chat.Completions.ChatCompletion;
    try {
      response = await this.client.chat.completions.create(
        {
          model: this.model,
          messages: request.messages as OpenAI.Chat.Completions.ChatCompletionMessageParam[],
          ...(request.tools ? { tools: request.tools as OpenAI.Chat.Completions.ChatCompletionTool[] } : {}),
          ...(request.max_tokens !== undefined ? { max_tokens: request.max_tokens } : {}),
          ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
          ...(request.seed !== undefined ? { seed: request.seed } : {}),
        },
        { signal: context.signal },
      );
    } catch (e) {
      throw new ModelError(this.describe(OpenAISdk, e), this.retries());
    }
    const latencyMs = performance.now() - started;
    return {
      ...parseCompletion(response, (m) => new ModelError(this.scrub(m), this.retries())),
      latencyMs,
      retries: this.retries(),
    };
  }

  private retries(): number {
    return Math.max(0, this.attempts - 1);
  }

  private describe(OpenAISdk: Sdk, e: unknown): string {
    const retried =
      this.retries() > 0 ? ` (after ${this.retries()} ${this.retries() === 1 ? 'retry' : 'retries'})` : '';
    if (e instanceof OpenAISdk.APIConnectionTimeoutError)
      return this.scrub(`request timed out after ${this.options.timeoutMs / 1000} s${retried}`);
    if (e instanceof OpenAISdk.APIConnectionError) return this.scrub(`connection failed: ${e.message}${retried}`);
    if (e instanceof OpenAISdk.APIError)
      return this.scrub(`HTTP ${e.status ?? '?'} from ${this.model}: ${e.message}${retried}`);
    return this.scrub(e instanceof Error ? e.message : String(e));
  }

  /** Provider messages can echo what was sent; the key must never reach a record. */
  private scrub(message: string): string {
    return redact(message, [this.options.apiKey]);
  }
}

/**
 * The parts of a completion the harness uses, read by the one Chat Completions reader bench serve's
 * clients and the gateway use (src/wire/chat/spelling.ts). Usage comes only from the provider: a
 * response without it (prompt and completion counts) is an error, never an estimate. Only standard
 * message fields are kept, so the next request sends exactly what an OpenAI agent would (and parity
 * with the in-process sim holds).
 */
export function parseCompletion(
  response: unknown,
  fail: (message: string) => Error,
): { message: AssistantMessage; usage: Usage; finishReason: FinishReason } {
  const answer = readCompletion(response);
  const choices = (response as { choices?: unknown[] } | null)?.choices;
  if (!answer || !choices?.length) throw fail('response has no choices');
  const usage = usageFrom(answer.usage);
  if (!usage) throw fail("response has no usage (loopbench counts tokens only from the provider's usage field)");
  return { message: answer.message, finishReason: answer.finishReason, usage };
}
