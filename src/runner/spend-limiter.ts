// A hard cap on the metered spend of a whole sweep (or a whole `bench check`). Each run reserves its
// worst case (its own max-cost brake guarantees it never spends more) before it starts, and gives
// back what it did not spend when it ends: so the total can never cross the cap, even with runs in
// flight at once. Once a run does not fit, no further run starts. That holds while models honour
// max_tokens; the first answer longer than max_tokens (a misbehaving provider) halts the sweep: no
// further call in any run, no further run, and the overrun is reported.

import type { SpendGuard, SpendState } from '../contracts/sweep-state.ts';

export class SpendLimiter implements SpendGuard {
  private spent = 0;
  private reserved = 0;
  private inFlight = 0;
  private stopped = false;
  private skipped = 0;
  private overrun = 0;
  private overrunSeen = false;
  private waiters: Array<() => void> = [];

  constructor(readonly capUsd: number) {}

  /** Waits for runs in flight to settle when the worst case does not fit yet; false: do not start. */
  async acquire(worstCaseUsd: number): Promise<boolean> {
    for (;;) {
      if (this.stopped) break;
      if (this.spent + this.reserved + worstCaseUsd <= this.capUsd) {
        this.reserved += worstCaseUsd;
        this.inFlight++;
        return true;
      }
      if (this.inFlight === 0) {
        this.stopped = true;
        break;
      }
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    this.skipped++;
    return false;
  }

  /** True once any call returned more than max_tokens: runs in flight make no further call. */
  get halted(): boolean {
    return this.overrunSeen;
  }

  /** A call came back longer than max_tokens: no run starts, and no run in flight calls again. */
  noteOverrun(): void {
    this.overrunSeen = true;
    this.stopped = true;
  }

  /** A run that acquired `worstCaseUsd` ended having spent `actualUsd`. */
  release(worstCaseUsd: number, actualUsd: number): void {
    this.reserved -= worstCaseUsd;
    this.spent += actualUsd;
    if (actualUsd > worstCaseUsd) {
      this.overrun += actualUsd - worstCaseUsd;
      this.stopped = true;
    }
    this.inFlight--;
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) w();
  }

  get state(): SpendState {
    return {
      cap_usd: this.capUsd,
      spent_usd: this.spent,
      stopped: this.stopped,
      runs_skipped: this.skipped,
      ...(this.overrun > 0 ? { overrun_usd: this.overrun } : {}),
    };
  }
}
