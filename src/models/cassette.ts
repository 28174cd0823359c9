// Cassettes: recorded request/response pairs, so a sweep against a paid API can be re-run offline,
// for free and deterministically. A request is identified by a hash of the model spec and
// everything sent (messages, tools, parameters); the file holds no request headers, so no key.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { z } from 'zod';
import { UsageError } from '../contracts/errors.ts';
import { InputFileError, MAX_RECORDED_BYTES, readInputFile } from '../contracts/input-file.ts';
import { canonicalJson } from '../contracts/fingerprint.ts';
import { writeJsonAtomic } from '../results/atomic.ts';
import { zodConfigError } from '../scenario/yaml-file.ts';
import { partsDiffer, RequestParts } from './request-parts.ts';
import type { ChatRequest, FinishReason, Role, AssistantMessage, Usage } from '../contracts/chat.ts';

export const CASSETTE_VERSION = 1;

const Message = z
  .object({
    role: z.literal('assistant'),
    content: z.string().nullable(),
    tool_calls: z
      .array(
        z.object({
          id: z.string(),
          type: z.literal('function'),
          function: z.object({ name: z.string(), arguments: z.string() }),
        }),
      )
      .optional(),
  })
  .strict();

const Entry = z
  .object({
    key: z.string().regex(/^[0-9a-f]{64}$/),
    model: z.string().min(1),
    scenario: z.string(),
    step: z.number().int().nonnegative(),
    role: z.string(),
    /** Hashes of the request's parts, so a replay miss can say what changed (absent in older cassettes). */
    request: RequestParts.optional(),
    response: z
      .object({
        message: Message,
        usage: z
          .object({
            prompt_tokens: z.number().int().nonnegative(),
            completion_tokens: z.number().int().nonnegative(),
            cached_tokens: z.number().int().nonnegative(),
          })
          .strict(),
        latency_ms: z.number().nonnegative(),
        finish_reason: z.enum(['stop', 'tool_calls', 'length']).optional(),
      })
      .strict(),
  })
  .strict();
export type CassetteEntry = z.infer<typeof Entry>;

const File = z.object({ loopbench_cassette: z.literal(CASSETTE_VERSION), entries: z.array(Entry) }).strict();

/** Hash of what identifies a request: the model spec and every field sent. */
export function requestKey(model: string, r: ChatRequest): string {
  const sent = {
    model,
    messages: r.messages,
    tools: r.tools ?? null,
    max_tokens: r.max_tokens ?? null,
    temperature: r.temperature ?? null,
    seed: r.seed ?? null,
  };
  return createHash('sha256').update(canonicalJson(sent)).digest('hex');
}

export class Cassette {
  private readonly entries = new Map<string, CassetteEntry>();
  private dirty = false;

  private constructor(readonly file: string) {}

  /** An empty cassette, or the one already at `file` (recording adds to it). */
  static open(file: string): Cassette {
    return fs.existsSync(file) ? Cassette.load(file) : new Cassette(file);
  }

  static load(file: string): Cassette {
    let raw: unknown;
    try {
      raw = JSON.parse(readInputFile(file, MAX_RECORDED_BYTES));
    } catch (e) {
      const why = e instanceof InputFileError ? e.why : (e as Error).message;
      throw new UsageError(`${file}: cannot read cassette (${why})`);
    }
    const parsed = File.safeParse(raw);
    if (!parsed.success) throw zodConfigError(file, parsed.error);
    const c = new Cassette(file);
    for (const e of parsed.data.entries) c.entries.set(e.key, e);
    return c;
  }

  /** Model specs recorded, in first-seen order. */
  models(): string[] {
    return [...new Set([...this.entries.values()].map((e) => e.model))];
  }

  get size(): number {
    return this.entries.size;
  }

  find(key: string): CassetteEntry | undefined {
    return this.entries.get(key);
  }

  add(entry: {
    key: string;
    model: string;
    scenario: string;
    step: number;
    role: Role;
    request: RequestParts;
    message: AssistantMessage;
    usage: Usage;
    latencyMs: number;
    finishReason?: FinishReason;
  }): void {
    const { message, usage, latencyMs, finishReason, ...id } = entry;
    this.entries.set(entry.key, {
      ...id,
      response: {
        message,
        usage,
        latency_ms: Math.round(latencyMs),
        ...(finishReason ? { finish_reason: finishReason } : {}),
      },
    });
    this.dirty = true;
  }

  /**
   * Why a request is not here, in words: what differs from the nearest recorded request of the same
   * model (same scenario first, then fewest differences, then the nearest step).
   */
  explainMiss(
    model: string,
    scenario: string,
    step: number,
    parts: RequestParts,
  ): { nearest_step: number | null; differs: string[]; text: string } {
    const same = [...this.entries.values()].filter((e) => e.model === model);
    const ofScenario = same.filter((e) => e.scenario === scenario);
    if (ofScenario.length === 0) {
      const held = [...new Set(same.map((e) => e.scenario))];
      return {
        nearest_step: null,
        differs: [],
        text: `it holds no request for scenario '${scenario}' (it holds: ${held.join(', ') || 'nothing for this model'})`,
      };
    }
    const kept = ofScenario.filter((e) => e.request);
    if (kept.length === 0)
      return {
        nearest_step: null,
        differs: [],
        text: 'it was recorded before loopbench kept request fingerprints, so what changed cannot be told',
      };
    const ranked = kept
      .map((e) => ({ e, differs: partsDiffer(e.request!, parts) }))
      .sort((a, b) => a.differs.length - b.differs.length || Math.abs(a.e.step - step) - Math.abs(b.e.step - step));
    const best = ranked[0]!;
    const what = best.differs.length
      ? `differs in ${best.differs.join(', ')}`
      : 'matches it in every part kept (model, messages, tools and parameters hash alike only when equal)';
    return {
      nearest_step: best.e.step,
      differs: best.differs,
      text: `the nearest recorded request (step ${best.e.step}) ${what}`,
    };
  }

  /** Writes the file (atomically) if anything was added since the last save. */
  save(): void {
    if (!this.dirty) return;
    writeJsonAtomic(this.file, { loopbench_cassette: CASSETTE_VERSION, entries: [...this.entries.values()] });
    this.dirty = false;
  }
}
