// `--concurrency N` against a real provider: at most N model calls in flight, shared by every run
// of the sweep. More runs than slots are open (each waits in line for a slot before each call), so
// a slot freed by one run's call is taken at once by another's instead of waiting for a whole run
// to end: whole-run scheduling left slots idle in the last wave (100 runs of 10 × 200 ms calls on
// 16 slots cannot finish before 7 waves × 2 s = 14 s, 89% of the ideal 12.5 s).
// First come, first served: every open run advances at the same pace and none waits forever.

import type { CallSlotPool } from '../contracts/call-slots.ts';

export class CallSlots implements CallSlotPool {
  private free: number;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly size: number) {
    this.free = size;
  }

  /** Resolves true once a slot is held (release it after the call), or false if `signal` aborted first. */
  acquire(signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    if (this.free > 0) {
      this.free--;
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(true);
      };
      const onAbort = () => {
        const at = this.waiting.indexOf(grant);
        if (at >= 0) this.waiting.splice(at, 1);
        resolve(false);
      };
      this.waiting.push(grant);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free = Math.min(this.size, this.free + 1);
  }

  /** Calls in flight now. */
  get held(): number {
    return this.size - this.free;
  }
}
