// Tokenizing a large request takes seconds (a 15 MB prompt, ~3 s; one long run of a single character
// far more, as BPE merges are quadratic in a piece's length). Done on the main thread it froze
// `bench serve` for every other client. Large messages are counted on a worker thread instead
// (count-worker.ts), against the same shared rank table; the server stays free while it works.
import type { Worker } from 'node:worker_threads';
import type { ChatMessage } from '../contracts/chat.ts';
import { countText, messageTexts, messageTokensUncached, sharedRanks, type TokenCounter } from '../meter/tokens.ts';
import { spawnEntry } from '../runner/workers/spawn.ts';

/** Texts longer than this are tokenized off the main thread (shorter ones take well under a millisecond). */
export const OFF_THREAD_CHARS = 64 * 1024;

export class OffThreadCounter {
  private worker: Worker | null = null;
  private next = 0;
  private readonly waiting = new Map<number, (counts: number[]) => void>();

  private start(): Worker {
    const w = spawnEntry('count-worker.js', new URL('./count-worker.ts', import.meta.url), {
      workerData: { ranks: sharedRanks() },
    });
    w.on('message', ({ id, counts }: { id: number; counts: number[] }) => {
      this.waiting.get(id)?.(counts);
      this.waiting.delete(id);
    });
    // Idle, it must not keep the process alive.
    w.unref();
    return w;
  }

  private count(texts: string[]): Promise<number[]> {
    this.worker ??= this.start();
    const id = this.next++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.worker!.postMessage({ id, texts });
    });
  }

  /** Counts the messages holding a long text off the main thread and hands the totals to `counter`. */
  async precount(messages: ChatMessage[], counter: TokenCounter): Promise<void> {
    const large = messages.filter((m) => messageTexts(m).some((t) => t.length > OFF_THREAD_CHARS));
    if (large.length === 0) return;
    const texts = [...new Set(large.flatMap(messageTexts).filter((t) => t.length > OFF_THREAD_CHARS))];
    const counts = await this.count(texts);
    const counted = new Map(texts.map((t, i) => [t, counts[i]!]));
    for (const m of large)
      counter.remember(
        m,
        messageTokensUncached(m, (t) => counted.get(t) ?? countText(t)),
      );
  }

  async close(): Promise<void> {
    await this.worker?.terminate();
    this.worker = null;
  }
}
