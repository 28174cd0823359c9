// JSONL lines collected as UTF-8 bytes in one reused buffer: what a sweep worker sends the main
// thread for a run's steps, written there as they are. They leave as a copy, never by transferring
// the buffer: detaching any ArrayBuffer invalidates V8's detaching protector for the whole thread,
// after which every typed-array access in optimized code (the tokenizer's, mostly) carries a check;
// the same runs then took 1.2-1.5x as long in a worker that transferred (README, Performance).

/** Lines appended as UTF-8 into a buffer that doubles as it fills. */
export class LineBytes {
  private buffer: Uint8Array<ArrayBuffer>;
  private used = 0;
  private static readonly encoder = new TextEncoder();

  constructor(initialBytes = 64 * 1024) {
    this.buffer = new Uint8Array(initialBytes);
  }

  /** A line already serialised (ending in a newline). */
  append(line: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    const room = this.used + 3 * line.length;
    if (room > this.buffer.length) {
      const grown = new Uint8Array(Math.max(room, 2 * this.buffer.length));
      grown.set(this.buffer.subarray(0, this.used));
      this.buffer = grown;
    }
    this.used += LineBytes.encoder.encodeInto(line, this.buffer.subarray(this.used)).written;
  }

  /** The lines so far, as a copy of their own (exactly their length), and empties this for the next lines. */
  take(): Uint8Array<ArrayBuffer> {
    const lines = this.buffer.slice(0, this.used);
    this.used = 0;
    return lines;
  }

  /** Drops the lines so far (a run that failed), keeping the buffer. */
  clear(): void {
    this.used = 0;
  }
}
