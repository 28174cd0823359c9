// The ids of the calls already counted, across files (a resumed Claude Code session's log repeats the
// calls it copied): one per call of the whole import, so kept small — a 64-bit hash of each id in one
// typed array, open addressing with linear probing at most half full (≤ 32 bytes an id, against
// ~125 for a Set of strings: a million-call log's ids in 32 MB, not 125). Two ids of one hash would
// count the second as seen: fewer than one chance in 10^7 at a million ids.

/** What the Claude Code reader needs of the ids counted. */
export interface IdSet {
  has(id: string): boolean;
  add(id: string): void;
}

/** Two independent 32-bit hashes of a string's UTF-16 code units (FNV-1a and a murmur3-style mix), each finalised. */
function hash64(id: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ Math.imul(c, 0xcc9e2d51), 0x1b873593);
    b = (b << 13) | (b >>> 19);
  }
  return [fmix(a ^ id.length), (fmix(b ^ id.length) | 1) >>> 0];
}

/** murmur3's finaliser: every input bit reaches every output bit. */
function fmix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

export class CountedIds implements IdSet {
  /** Pairs [hi, lo]; a slot whose lo is 0 is empty (every stored lo is odd). */
  private slots = new Uint32Array(2 * 1024);
  private size = 0;

  has(id: string): boolean {
    const [hi, lo] = hash64(id);
    return this.slots[this.find(hi, lo) + 1] !== 0;
  }

  add(id: string): void {
    const [hi, lo] = hash64(id);
    const at = this.find(hi, lo);
    if (this.slots[at + 1] !== 0) return;
    this.slots[at] = hi;
    this.slots[at + 1] = lo;
    if (++this.size * 4 > this.slots.length) this.grow();
  }

  /** The slot holding [hi, lo], or the empty one where it would go. */
  private find(hi: number, lo: number): number {
    const mask = this.slots.length / 2 - 1;
    for (let i = hi & mask; ; i = (i + 1) & mask) {
      const at = 2 * i;
      const l = this.slots[at + 1]!;
      if (l === 0 || (l === lo && this.slots[at] === hi)) return at;
    }
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Uint32Array(old.length * 2);
    for (let at = 0; at < old.length; at += 2) {
      if (old[at + 1] === 0) continue;
      const to = this.find(old[at]!, old[at + 1]!);
      this.slots[to] = old[at]!;
      this.slots[to + 1] = old[at + 1]!;
    }
  }
}
