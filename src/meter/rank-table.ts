// A byte-pair rank table in one SharedArrayBuffer: every worker thread of a sweep counts tokens
// against the same bytes instead of building its own ~50 MB of Maps and strings (bench perf,
// targets 6 and 7). Pure: packing and looking up; reading the file is tokens.ts's job.
//
// Keys are each token's bytes, as tiktoken keys them (o200k_base: 199,998 ranks; gpt-tokenizer
// keeps 1,571 of them as byte arrays, not UTF-8 text on their own or starting with a byte-order mark). Layout (little-endian 32-bit words, then the bytes):
//   header[HEADER_WORDS] | slots[capacity × SLOT_WORDS] | keyBytes
// A slot is [hash, key start, key length, rank]: one cache line read per probe, then the key's
// bytes, so a lookup reads ~2 lines (hashes, entries, offsets and ranks in separate arrays read ~5).
// Open addressing with linear probing over a power-of-two capacity at most half full.

const MAGIC = 0x4b4e4152; // "RANK"
const FORMAT = 1;
const HEADER_WORDS = 4; // magic, format, entries, capacity
const SLOT_WORDS = 4;
/** A slot's key length when it is empty (no token is empty). */
const EMPTY = 0;

/** FNV-1a: a hash starts at HASH_START and takes each byte with hashStep (callers fuse it with their own loops). */
export const HASH_START = 0x811c9dc5;
export const hashStep = (h: number, byte: number): number => Math.imul(h ^ byte, 0x01000193);

function hashBytes(bytes: Uint8Array, from: number, to: number): number {
  let h = HASH_START;
  for (let i = from; i < to; i++) h = hashStep(h, bytes[i]!);
  return h >>> 0;
}

/** Packs ranks (index = rank; a string is its UTF-8 bytes, an array is the bytes themselves) into a table. */
export function packRanks(ranks: ReadonlyArray<string | readonly number[] | null | undefined>): Uint8Array {
  const encoder = new TextEncoder();
  const keys: Uint8Array[] = [];
  const rankOf: number[] = [];
  ranks.forEach((value, rank) => {
    if (value == null) return;
    keys.push(typeof value === 'string' ? encoder.encode(value) : Uint8Array.from(value));
    rankOf.push(rank);
  });
  const n = keys.length;
  let capacity = 1;
  while (capacity < 2 * n) capacity *= 2;
  const keyBytes = keys.reduce((sum, k) => sum + k.length, 0);
  const words = HEADER_WORDS + SLOT_WORDS * capacity;
  const out = new Uint8Array(words * 4 + keyBytes);
  new Uint32Array(out.buffer, 0, HEADER_WORDS).set([MAGIC, FORMAT, n, capacity]);
  const table = unpack(out);
  let offset = 0;
  keys.forEach((key, i) => {
    const h = hashBytes(key, 0, key.length);
    let slot = (h & (capacity - 1)) * SLOT_WORDS;
    while (table.slots[slot + 2] !== EMPTY) {
      if (table.slots[slot] === h && equalKey(table, slot, key, 0, key.length))
        throw new Error(`rank table: rank ${rankOf[i]} repeats the bytes of rank ${table.slots[slot + 3]}`);
      slot = (slot + SLOT_WORDS) & (capacity * SLOT_WORDS - 1);
    }
    table.keyBytes.set(key, offset);
    table.slots.set([h, offset, key.length, rankOf[i]!], slot);
    offset += key.length;
  });
  return out;
}

export interface RankTable {
  readonly entries: number;
  readonly capacity: number;
  readonly slots: Uint32Array;
  readonly keyBytes: Uint8Array;
}

/** A view of a packed table (any ArrayBuffer or SharedArrayBuffer-backed bytes; nothing is copied). */
export function unpack(bytes: Uint8Array): RankTable {
  if (bytes.byteOffset % 4 !== 0 || bytes.byteLength < HEADER_WORDS * 4)
    throw new Error('rank table: not a packed table');
  const header = new Uint32Array(bytes.buffer, bytes.byteOffset, HEADER_WORDS);
  if (header[0] !== MAGIC || header[1] !== FORMAT) throw new Error('rank table: not a packed table of this format');
  const entries = header[2]!;
  const capacity = header[3]!;
  const slotsAt = bytes.byteOffset + HEADER_WORDS * 4;
  const keysAt = slotsAt + SLOT_WORDS * capacity * 4;
  if (keysAt > bytes.byteOffset + bytes.byteLength) throw new Error('rank table: truncated');
  const slots = new Uint32Array(bytes.buffer, slotsAt, SLOT_WORDS * capacity);
  const keyBytes = new Uint8Array(bytes.buffer, keysAt, bytes.byteOffset + bytes.byteLength - keysAt);
  return { entries, capacity, slots, keyBytes };
}

function equalKey(t: RankTable, slot: number, bytes: Uint8Array, from: number, to: number): boolean {
  if (t.slots[slot + 2] !== to - from) return false;
  const keys = t.keyBytes;
  for (let i = from, j = t.slots[slot + 1]!; i < to; i++, j++) if (keys[j] !== bytes[i]) return false;
  return true;
}

/** The rank of bytes[from, to), or -1 when they are no token. */
export function rankOf(t: RankTable, bytes: Uint8Array, from: number, to: number): number {
  return rankOfHashed(t, bytes, from, to, hashBytes(bytes, from, to));
}

/** rankOf, given the bytes' hash (their hashStep fold from HASH_START, as an unsigned 32-bit number). */
export function rankOfHashed(t: RankTable, bytes: Uint8Array, from: number, to: number, h: number): number {
  const slots = t.slots;
  const mask = t.capacity * SLOT_WORDS - 1;
  for (let slot = (h & (t.capacity - 1)) * SLOT_WORDS; ; slot = (slot + SLOT_WORDS) & mask) {
    if (slots[slot + 2] === EMPTY) return -1;
    if (slots[slot] === h && equalKey(t, slot, bytes, from, to)) return slots[slot + 3]!;
  }
}

/** Per table, the slot of each rank (built on the first decode: counting never needs it). */
const slotOfRank = new WeakMap<RankTable, Int32Array>();

/** The bytes of token `rank` (a view into the table). */
export function tokenBytes(t: RankTable, rank: number): Uint8Array {
  let index = slotOfRank.get(t);
  if (!index) {
    let max = 0;
    for (let slot = 0; slot < t.slots.length; slot += SLOT_WORDS)
      if (t.slots[slot + 2] !== EMPTY) max = Math.max(max, t.slots[slot + 3]!);
    index = new Int32Array(max + 1).fill(-1);
    for (let slot = 0; slot < t.slots.length; slot += SLOT_WORDS)
      if (t.slots[slot + 2] !== EMPTY) index[t.slots[slot + 3]!] = slot;
    slotOfRank.set(t, index);
  }
  const slot = Number.isInteger(rank) && rank >= 0 && rank < index.length ? index[rank]! : -1;
  if (slot < 0) throw new Error(`o200k_base has no token ${rank}`);
  return t.keyBytes.subarray(t.slots[slot + 1]!, t.slots[slot + 1]! + t.slots[slot + 2]!);
}
