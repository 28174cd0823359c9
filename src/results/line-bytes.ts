// JSONL lines collected as UTF-8 bytes in one buffer of their own: what a sweep worker hands the
// main thread for a run's steps (the buffer is transferred, not copied, and written as it is).

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

  /** The lines so far: a view of the buffer, whose ArrayBuffer is this object's alone (transferable). */
  bytes(): Uint8Array<ArrayBuffer> {
    return this.buffer.subarray(0, this.used);
  }
}
