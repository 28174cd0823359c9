// o200k_base against a packed rank table (rank-table.ts), as tiktoken tokenizes: the text is split
// by the encoding's own pattern (gpt-tokenizer's), then a piece is one token when its UTF-8 bytes
// are one, or else as many as byte-pair merging leaves. Special tokens such as <|endoftext|> in a
// text are ordinary text here, as they are in a chat request's content. Pure: no I/O.
//
// Counts equal gpt-tokenizer's, which the tests check on the sims' conversations and hostile text,
// except in text holding U+FEFF (a byte-order mark): gpt-tokenizer's merge decodes each candidate
// pair with a TextDecoder that strips a leading mark, so it never finds a token starting with one;
// this file looks the bytes up as they are, as tiktoken merges. (The split pattern, JavaScript's, takes
// U+FEFF for white space where tiktoken's does not: such text may count a token or two off the API.)
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { HASH_START, hashStep, rankOf, rankOfHashed, tokenBytes, type RankTable } from './rank-table.ts';

// Scratch space, reused by every piece of every text (grown, never shrunk).
let bytes = new Uint8Array(1024);
let starts = new Int32Array(256);
let ranks = new Float64Array(256);

function room(length: number): void {
  if (bytes.length < 3 * length) bytes = new Uint8Array(3 * length);
}

/**
 * Writes the UTF-8 of `s` into `bytes` as TextEncoder would (a lone surrogate is U+FFFD); returns
 * its length, negated when `s` holds a lone surrogate (gpt-tokenizer then merges instead of looking
 * the piece up whole: kept, so that counts equal the package's everywhere).
 */
function utf8(s: string): number {
  room(s.length);
  let n = 0;
  let wellFormed = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes[n++] = c;
    else if (c < 0x800) {
      bytes[n++] = 0xc0 | (c >> 6);
      bytes[n++] = 0x80 | (c & 0x3f);
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const d = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
        const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        bytes[n++] = 0xf0 | (cp >> 18);
        bytes[n++] = 0x80 | ((cp >> 12) & 0x3f);
        bytes[n++] = 0x80 | ((cp >> 6) & 0x3f);
        bytes[n++] = 0x80 | (cp & 0x3f);
        i++;
      } else {
        wellFormed = false;
        bytes[n++] = 0xef;
        bytes[n++] = 0xbf;
        bytes[n++] = 0xbd;
      }
    } else {
      bytes[n++] = 0xe0 | (c >> 12);
      bytes[n++] = 0x80 | ((c >> 6) & 0x3f);
      bytes[n++] = 0x80 | (c & 0x3f);
    }
  }
  return wellFormed ? n : -n;
}

/** The rank of the pair of parts starting at part i (bytes[starts[i], starts[i + 2])), Infinity when there is none. */
function pairRank(t: RankTable, i: number, parts: number): number {
  if (i + 2 >= parts) return Infinity;
  const r = rankOf(t, bytes, starts[i]!, starts[i + 2]!);
  return r < 0 ? Infinity : r;
}

/** Byte-pair merges bytes[0, length): joins the adjacent pair of lowest rank until none is a token; returns the parts. */
function merge(t: RankTable, length: number): number {
  if (starts.length < length + 1) {
    starts = new Int32Array(2 * length + 2);
    ranks = new Float64Array(2 * length + 2);
  }
  let parts = length + 1;
  for (let i = 0; i < parts; i++) starts[i] = i;
  for (let i = 0; i < parts; i++) ranks[i] = pairRank(t, i, parts);
  while (parts > 1) {
    let lowest = Infinity;
    let at = -1;
    for (let i = 0; i < parts - 1; i++) {
      if (ranks[i]! < lowest) {
        lowest = ranks[i]!;
        at = i;
      }
    }
    if (at < 0) break;
    starts.copyWithin(at + 1, at + 2, parts);
    ranks.copyWithin(at, at + 1, parts);
    parts--;
    ranks[at] = pairRank(t, at, parts);
    if (at > 0) ranks[at - 1] = pairRank(t, at - 1, parts);
  }
  return parts - 1;
}

/** A piece of `length` bytes in `bytes` whose whole-piece lookup gave `whole`: its tokens, pushed to `out` if given. */
function pieceTokens(t: RankTable, whole: number, length: number, out: number[] | undefined): number {
  if (whole >= 0) {
    out?.push(whole);
    return 1;
  }
  const n = merge(t, length);
  if (out) for (let i = 0; i < n; i++) out.push(rankOf(t, bytes, starts[i]!, starts[i + 1]!));
  return n;
}

/**
 * Tokens of text[from, to), a piece of ASCII characters (a char code is its byte): hashed as its
 * bytes are copied, looked up whole, merged if it is not one token.
 */
function asciiPiece(t: RankTable, text: string, from: number, to: number, out: number[] | undefined): number {
  const length = to - from;
  room(length);
  const b = bytes;
  let h = HASH_START;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(from + i);
    b[i] = c;
    h = hashStep(h, c);
  }
  return pieceTokens(t, rankOfHashed(t, b, 0, length, h >>> 0), length, out);
}

const ASCII = /^[\x00-\x7f]*$/;

/** Tokens of `text` split by the encoding's own pattern (any text). */
function tokenizeSplit(t: RankTable, text: string, out: number[] | undefined): number {
  const pieces = text.match(O200K_TOKEN_SPLIT_REGEX);
  if (!pieces) return 0;
  let count = 0;
  for (const piece of pieces) {
    if (ASCII.test(piece)) count += asciiPiece(t, piece, 0, piece.length, out);
    else {
      const n = utf8(piece);
      count += pieceTokens(t, n > 0 ? rankOf(t, bytes, 0, n) : -1, Math.abs(n), out);
    }
  }
  return count;
}

// Character classes of ASCII codes, as the split pattern sees them: \p{Lu}, \p{Ll}, \p{N}, \s
// (JavaScript's: tab, line feed, vertical tab, form feed, carriage return, space) and the rest.
const UPPER = 1;
const LOWER = 2;
const DIGIT = 4;
const SPACE = 8; // white space but a line break
const NEWLINE = 16; // \r and \n
const OTHER = 32; // neither a letter, a digit nor white space
const CLASS = new Uint8Array(128).map((_, c) =>
  c >= 65 && c <= 90
    ? UPPER
    : c >= 97 && c <= 122
      ? LOWER
      : c >= 48 && c <= 57
        ? DIGIT
        : c === 10 || c === 13
          ? NEWLINE
          : (c >= 9 && c <= 12) || c === 32
            ? SPACE
            : OTHER,
);
const LETTER = UPPER | LOWER;
const WHITE = SPACE | NEWLINE;
/** [^\r\n\p{L}\p{N}]: what may stand before a word. */
const PREFIX = OTHER | SPACE;
const APOSTROPHE = 39;

const cls = (text: string, i: number): number => (i < text.length ? CLASS[text.charCodeAt(i)]! : 0);
const lower = (text: string, i: number): number => text.charCodeAt(i) | 0x20;

/** Where a contraction ('s 'd 'm 't 'll 've 're, either case) starting at i ends, or i if none does. */
function contraction(text: string, i: number): number {
  if (i + 1 >= text.length || text.charCodeAt(i) !== APOSTROPHE) return i;
  const a = lower(text, i + 1);
  if (a === 0x73 || a === 0x64 || a === 0x6d || a === 0x74) return i + 2; // s d m t
  if (i + 2 >= text.length) return i;
  const b = lower(text, i + 2);
  return (a === 0x6c && b === 0x6c) || (a === 0x76 && b === 0x65) || (a === 0x72 && b === 0x65) ? i + 3 : i; // ll ve re
}

/**
 * Where the piece of ASCII `text` starting at i ends: the split pattern's alternatives in its order,
 * with its backtracking worked out for ASCII, without a regular expression or a string per piece.
 * (Tested against the pattern itself on hostile text.)
 */
export function pieceEnd(text: string, i: number): number {
  const n = text.length;
  const c = cls(text, i);
  // [^\r\n\p{L}\p{N}]?\p{Lu}*\p{Ll}+('s|…)? or [^\r\n\p{L}\p{N}]?\p{Lu}+\p{Ll}*('s|…)?: together, a
  // letter (after at most one such prefix), every upper-case letter, then every lower-case one.
  if (c & LETTER || (c & PREFIX && cls(text, i + 1) & LETTER)) {
    let j = c & LETTER ? i : i + 1;
    while (cls(text, j) & UPPER) j++;
    while (cls(text, j) & LOWER) j++;
    return contraction(text, j);
  }
  // \p{N}{1,3}
  if (c & DIGIT) {
    let j = i + 1;
    while (j < i + 3 && cls(text, j) & DIGIT) j++;
    return j;
  }
  // ' ?[^\s\p{L}\p{N}]+[\r\n/]*'
  if (c & OTHER || (text.charCodeAt(i) === 32 && cls(text, i + 1) & OTHER)) {
    let j = c & OTHER ? i + 1 : i + 2;
    while (cls(text, j) & OTHER) j++;
    while (j < n && (cls(text, j) & NEWLINE || text.charCodeAt(j) === 0x2f)) j++;
    return j;
  }
  // White space, to k: \s*[\r\n]+ ends after its last line break; else \s+(?!\S) leaves the last
  // space to the next piece unless the text ends; else \s+ (one space before a non-space).
  let k = i + 1;
  while (cls(text, k) & WHITE) k++;
  for (let j = k - 1; j >= i; j--) if (cls(text, j) & NEWLINE) return j + 1;
  return k === n || k - i === 1 ? k : k - 1;
}

/** Tokens of `text`, their ranks pushed to `out` if given (counting alone allocates nothing per piece). */
function tokenize(t: RankTable, text: string, out?: number[]): number {
  // Most text is ASCII (every simulated word is): split by hand. Any other, by the pattern.
  if (!ASCII.test(text)) return tokenizeSplit(t, text, out);
  let count = 0;
  for (let i = 0; i < text.length;) {
    const end = pieceEnd(text, i);
    count += asciiPiece(t, text, i, end, out);
    i = end;
  }
  return count;
}

/** o200k_base tokens in `text`. */
export function countTokens(t: RankTable, text: string): number {
  return tokenize(t, text);
}

/** The token ids (ranks) of `text`. */
export function encodeTokens(t: RankTable, text: string): number[] {
  const out: number[] = [];
  tokenize(t, text, out);
  return out;
}

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** The text of token ids: their bytes joined and read as UTF-8 (invalid bytes as U+FFFD), less a last character cut short. */
export function decodeTokens(t: RankTable, ids: readonly number[]): string {
  const parts = ids.map((id) => tokenBytes(t, id));
  const joined = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    joined.set(p, at);
    at += p.length;
  }
  return decoder.decode(joined.subarray(0, at - cutShort(joined, at)));
}

/** Bytes at the end of bytes[0, end) that begin a UTF-8 character and stop before it does (a cut mid-character). */
function cutShort(b: Uint8Array, end: number): number {
  for (let back = 1; back <= Math.min(3, end); back++) {
    const byte = b[end - back]!;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back
    // Only a byte that can begin a character is cut short; any other (C0, C1, F5–FF) decodes as U+FFFD.
    if (byte < 0xc2 || byte > 0xf4) return 0;
    const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
    return need > back ? back : 0;
  }
  return 0;
}
