// The tokenizer loopbench meters with: o200k_base's ranks packed into one shared table (the build's
// file is the package's table to the entry) and counted as tiktoken counts, equal to gpt-tokenizer's
// own counts and token ids on ordinary and hostile text.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { GptEncoding } from 'gpt-tokenizer/GptEncoding';
import { describe, expect, it } from 'vitest';
import { ranksFile } from '../src/contracts/paths.ts';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { countTokens, decodeTokens, encodeTokens, pieceEnd } from '../src/meter/bpe.ts';
import { packRanks, rankOf, tokenBytes, unpack } from '../src/meter/rank-table.ts';
import { countText, decodeText, encodeText, sharedRanks } from '../src/meter/tokens.ts';
import { truncateTokens } from '../src/meter/truncate.ts';
import { spawnEntry } from '../src/runner/workers/spawn.ts';

const { version } = JSON.parse(
  fs.readFileSync(new URL('../node_modules/gpt-tokenizer/package.json', import.meta.url), 'utf8'),
);
const { default: packageRanks } = await import('gpt-tokenizer/bpeRanks/o200k_base');
const library = GptEncoding.getEncodingApi('o200k_base', () => packageRanks);
/** gpt-tokenizer with special tokens read as text, as a chat request's content is (its default refuses them). */
const asText = { disallowedSpecial: new Set<string>() };

/** Seeded texts of every kind the tokenizer splits differently: words, numbers, code, CJK, emoji, odd whitespace, rare characters. */
function corpus(n: number): string[] {
  const words = [
    'the',
    'Thought:',
    'verify',
    "don't",
    "WE'LL",
    '12345',
    '3.14159',
    '{"path": "/tmp/x"}',
    'def f(x):\n\treturn x ** 2',
    'héllo',
    'Ünïcødé',
    '日本語のテキスト',
    'テスト',
    '🙂',
    '👩‍👩‍👧',
    '\r\n',
    '\n\n\n',
    '   ',
    '\t',
    '—',
    '<|endoftext|>',
    '<|im_start|>',
    'ℵ₀',
    'ﬁ',
    'Ⅻ',
    'x'.repeat(40),
    '0x7fffffff',
    'A1b2C3',
  ];
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  return Array.from({ length: n }, () =>
    Array.from({ length: 30 }, () => {
      const r = rnd();
      // Now and then any code unit at all, lone surrogates included.
      if (r < 0.08) return String.fromCharCode(Math.floor(rnd() * 0x10000));
      if (r < 0.12) return String.fromCodePoint(0x10000 + Math.floor(rnd() * 0xfffff));
      return words[Math.floor(rnd() * words.length)]!;
    }).join(rnd() < 0.5 ? ' ' : ''),
  );
}

describe('the o200k_base rank table', () => {
  const table = unpack(fs.readFileSync(ranksFile(version)));

  it("is the package's table to the entry: every rank, its bytes, and nothing else", () => {
    const encoder = new TextEncoder();
    expect(table.entries).toBe(packageRanks.length);
    const wrong: number[] = [];
    packageRanks.forEach((value: string | number[], rank: number) => {
      const bytes = typeof value === 'string' ? encoder.encode(value) : Uint8Array.from(value);
      if (Buffer.compare(tokenBytes(table, rank), bytes) !== 0 || rankOf(table, bytes, 0, bytes.length) !== rank)
        wrong.push(rank);
    });
    expect(wrong).toEqual([]);
    expect(() => tokenBytes(table, packageRanks.length)).toThrow(/no token 199998/);
  });

  it('refuses what is not a packed table, and ranks whose bytes repeat', () => {
    expect(() => unpack(new Uint8Array(64))).toThrow(/not a packed table/);
    expect(() => packRanks(['ab', [97, 98]])).toThrow(/rank 1 repeats the bytes of rank 0/);
    const small = unpack(packRanks(['a', 'b', 'ab', [0xff]]));
    expect(encodeTokens(small, 'abba')).toEqual([2, 1, 0]);
  });
});

describe('counting against the table', () => {
  const table = unpack(sharedRanks());

  it('counts and encodes as gpt-tokenizer does, on 3,000 texts of every kind (special tokens as text, lone surrogates, emoji)', () => {
    for (const text of corpus(3000)) {
      expect(countTokens(table, text), JSON.stringify(text)).toBe(library.countTokens(text, asText));
      expect(encodeTokens(table, text)).toEqual(library.encode(text, asText));
    }
  });

  it("splits ASCII text by hand into the pattern's own pieces: 20,000 texts of the characters each alternative turns on", () => {
    // Letters of both cases, contractions, digits, every ASCII space and line break, slashes and
    // punctuation, control characters: every branch of the pattern and its backtracking.
    const atoms = [
      'a',
      'Z',
      'word',
      'WORD',
      'MixedCase',
      "'",
      "'s",
      "'S",
      "'ll",
      "'LL",
      "'Ve",
      "'re",
      "'d",
      "'m",
      "'t",
      "'x",
      '1',
      '22',
      '1234567',
      ' ',
      '  ',
      '\t',
      '\n',
      '\r\n',
      '\r',
      '\v',
      '\f',
      ' \n ',
      '/',
      '//',
      '.',
      '...',
      '(',
      '"',
      '-',
      '_',
      '\x00',
      '\x1f',
      '\x7f',
      '{"a": 1}',
    ];
    let seed = 11;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let n = 0; n < 20_000; n++) {
      const text = Array.from(
        { length: 1 + Math.floor(rnd() * 12) },
        () => atoms[Math.floor(rnd() * atoms.length)]!,
      ).join('');
      const pieces: string[] = [];
      for (let i = 0; i < text.length; i = pieceEnd(text, i)) pieces.push(text.slice(i, pieceEnd(text, i)));
      expect(pieces, JSON.stringify(text)).toEqual(text.match(O200K_TOKEN_SPLIT_REGEX));
      expect(encodeTokens(table, text), JSON.stringify(text)).toEqual(library.encode(text, asText));
    }
  });

  it('counts text that the package refuses: special tokens are ordinary text in a message', () => {
    expect(() => library.countTokens('stop <|endoftext|> here')).toThrow(/Disallowed special token/);
    expect(countText('stop <|endoftext|> here')).toBe(library.countTokens('stop <|endoftext|> here', asText));
    expect(countText('stop <|endoftext|> here')).toBeGreaterThan(3);
  });

  it('counts the worst pieces: a long run of one character, a long number, a long unbroken line', () => {
    // The hand-written ASCII split's long cases too: white space with a line break far back, one
    // long run of punctuation, of slashes and line breaks, of apostrophes.
    const asciiRuns = [
      ' '.repeat(10_000) + 'x',
      '\n' + ' '.repeat(10_000) + 'x',
      ' \n'.repeat(5000),
      '-'.repeat(10_000),
      '/\n'.repeat(5000),
      "'".repeat(5000) + 's',
    ];
    for (const text of [
      'a'.repeat(20_000),
      '9'.repeat(5000),
      'x'.repeat(3000) + '日本'.repeat(500),
      '\u00e9'.repeat(4000),
      '🙂'.repeat(2000),
      ...asciiRuns,
    ]) {
      expect(countText(text)).toBe(library.countTokens(text, asText));
    }
    expect(countText('')).toBe(0);
  });

  it('decodes ids back to their text, and a cut mid-character leaves the character out', () => {
    const wellFormed = (t: string) => new TextDecoder().decode(new TextEncoder().encode(t)) === t;
    for (const text of corpus(200).filter(wellFormed)) expect(decodeText(encodeText(text))).toBe(text);
    const ids = encodeText('日本');
    const one = tokenBytes(table, ids[0]!);
    // A token can hold part of a character; decoding up to it must not invent one.
    const cut = decodeTokens(table, ids.slice(0, 1));
    expect(new TextEncoder().encode(cut).length).toBeLessThanOrEqual(one.length);
    expect(cut).not.toContain('\uFFFD');
    // A byte that can begin no character is not "cut short": it reads as U+FFFD.
    expect(decodeTokens(table, [rankOf(table, Uint8Array.of(0xff), 0, 1)])).toBe('\uFFFD');
    expect(truncateTokens('the quick brown fox jumps', 3)).toEqual({
      text: 'the quick brown',
      tokens: 5,
      truncated: true,
    });
  });

  it('merges text holding a byte-order mark by its bytes, as tiktoken does', () => {
    // gpt-tokenizer strips the mark from each pair it looks up, so it never builds a token starting with one.
    expect(encodeText('\uFEFFusing')).toEqual([9251]);
    expect(library.encode('\uFEFFusing', asText)).not.toEqual([9251]);
    expect(encodeText(' \uFEFF ')).toEqual([71280, 220]);
  });

  it('is one table for every thread: a worker counts against the bytes it is passed, loading nothing', async () => {
    const shared = sharedRanks();
    expect(shared.buffer).toBeInstanceOf(SharedArrayBuffer);
    const script = `
      const { parentPort, workerData } = require('node:worker_threads');
      const view = new Uint8Array(workerData.ranks.buffer, workerData.ranks.byteOffset, workerData.ranks.byteLength);
      parentPort.postMessage({ shared: view.buffer instanceof SharedArrayBuffer, first: Array.from(view.subarray(0, 8)) });`;
    const worker = new Worker(script, { eval: true, workerData: { ranks: shared } });
    const got = await new Promise<{ shared: boolean; first: number[] }>((resolve) => worker.once('message', resolve));
    await worker.terminate();
    expect(got).toEqual({ shared: true, first: Array.from(shared.subarray(0, 8)) });
  });

  it('a thread handed the table counts with it and reads no file: no tokenizer of its own', async () => {
    // The module loaded as a sweep worker loads it: every file read is recorded from before the import.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-ranks-'));
    const script = path.join(dir, 'probe.mts');
    fs.writeFileSync(
      script,
      `import fs from 'node:fs';
      import { parentPort, workerData } from 'node:worker_threads';
      const reads: string[] = [];
      const read = fs.readFileSync;
      (fs as { readFileSync: unknown }).readFileSync = (file: fs.PathOrFileDescriptor, ...rest: unknown[]) => (reads.push(String(file)), (read as (...a: unknown[]) => unknown)(file, ...rest));
      const { countText, useSharedRanks } = await import(${JSON.stringify(new URL('../src/meter/tokens.ts', import.meta.url).href)});
      useSharedRanks(workerData.ranks);
      parentPort!.postMessage({ tokens: countText('Thought: compute the sum of squares'), reads: reads.filter((f) => f.endsWith('.ranks') || f.includes('bpeRanks') || f.includes('encoding/o200k_base')) });`,
    );
    try {
      const worker = spawnEntry('unused.js', new URL(`file://${script}`), { workerData: { ranks: sharedRanks() } });
      const got = await new Promise<{ tokens: number; reads: string[] }>((resolve, reject) =>
        worker.once('message', resolve).once('error', reject),
      );
      await worker.terminate();
      expect(got).toEqual({ tokens: countText('Thought: compute the sum of squares'), reads: [] });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
