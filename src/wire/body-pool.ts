// Request bodies the gateway reads whole, in buffers it reuses. An agent's request is its whole
// conversation (~190 KB at 100 steps) and arrives in several chunks; joined into a new buffer each
// call, that is fresh memory the kernel must map and V8 must count as external memory, which makes
// it collect more often. A buffer goes back to the pool when its lease's last holder lets it go (the
// call is over and its request is written upstream): no body outlives its call.
import { Buffer } from 'node:buffer';

/** The most bytes the pool keeps idle: a few dozen conversations' bodies. */
export const POOL_BYTES = 32 * 1024 * 1024;
/** Smaller bodies are joined as before: Node's own allocation pool serves them. */
const POOLED_FROM = 16 * 1024;

/** A body and who still needs its bytes: each holder calls the function `hold()` gave it once. */
export interface Lease {
  bytes: Buffer;
  /** Another holder (e.g. the upstream request being written); the function lets go. */
  hold(): () => void;
  /** The first holder (the call) lets go. */
  drop(): void;
}

/** Bytes that are no pool's (one chunk, a small body, a WebSocket frame): nothing to give back. */
export const ownLease = (bytes: Buffer): Lease => ({ bytes, hold: () => () => {}, drop: () => {} });

export class BodyPool {
  private readonly free: Buffer[] = [];
  private idle = 0;

  constructor(private readonly maxIdle = POOL_BYTES) {}

  /** The chunks joined into one buffer: a pooled one when the body is large. */
  join(chunks: Buffer[], size: number): Lease {
    if (chunks.length === 1) return ownLease(chunks[0]!);
    if (size < POOLED_FROM || this.maxIdle === 0) return ownLease(Buffer.concat(chunks, size));
    const whole = this.take(size);
    let at = 0;
    for (const c of chunks) at += c.copy(whole, at);
    return this.lease(whole, size);
  }

  /** Buffers idle now (for tests). */
  get size(): number {
    return this.free.length;
  }

  private take(size: number): Buffer {
    // The smallest idle buffer that fits (a conversation grows a little each call: its last body's buffer fits its next one most times).
    let best = -1;
    for (let i = 0; i < this.free.length; i++)
      if (this.free[i]!.length >= size && (best < 0 || this.free[i]!.length < this.free[best]!.length)) best = i;
    if (best < 0) return Buffer.allocUnsafeSlow(Math.ceil(size * 1.25));
    const [b] = this.free.splice(best, 1);
    this.idle -= b!.length;
    return b!;
  }

  private lease(whole: Buffer, size: number): Lease {
    let holders = 0;
    const hold = () => {
      holders++;
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        if (--holders === 0) this.give(whole);
      };
    };
    return { bytes: whole.subarray(0, size), hold, drop: hold() };
  }

  private give(b: Buffer): void {
    if (this.idle + b.length > this.maxIdle) return;
    this.free.push(b);
    this.idle += b.length;
  }
}
