/** The run's clock: virtual for simulated models (so the timeout brake is deterministic), wall otherwise. */
export interface Clock {
  /** Milliseconds since the run started. */
  elapsedMs(): number;
  /** Account for simulated time (a model's latency, a scripted tool's duration). No-op on a wall clock. */
  advance(ms: number): void;
}

export class VirtualClock implements Clock {
  private t = 0;
  elapsedMs(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

export class WallClock implements Clock {
  private readonly start = performance.now();
  elapsedMs(): number {
    return performance.now() - this.start;
  }
  advance(): void {}
}
