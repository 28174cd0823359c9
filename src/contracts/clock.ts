/** The run's clock: virtual for simulated models (so the timeout brake is deterministic), wall otherwise. */
export interface Clock {
  /** Milliseconds since the run started. */
  elapsedMs(): number;
  /** Account for simulated time (a model's latency, a scripted tool's duration). No-op on a wall clock. */
  advance(ms: number): void;
  /** Leave out time the run spent queued for a call slot: other runs' calls are not this run's time. */
  exclude(ms: number): void;
}

export class VirtualClock implements Clock {
  private t = 0;
  elapsedMs(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
  exclude(): void {}
}

export class WallClock implements Clock {
  private start = performance.now();
  elapsedMs(): number {
    return performance.now() - this.start;
  }
  advance(): void {}
  exclude(ms: number): void {
    this.start += ms;
  }
}
