// JsonlWriter: lines reach the file whole, in order, only when flushed, whatever their size or script.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonlWriter, LineBuffer, readJsonl, readJsonlAt, readJsonlLines } from '../src/results/jsonl.ts';
import { LineBytes } from '../src/results/line-bytes.ts';
import { stepLine, stepLineParser, writeStepLine } from '../src/results/step-line.ts';
import type { StepRecord } from '../src/contracts/records.ts';

let tmp: string;
beforeAll(() => void (tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-jsonl-'))));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('JsonlWriter', () => {
  it('writes records across many buffer fills, multi-byte text and a line larger than the buffer, byte for byte', async () => {
    const file = path.join(tmp, 'many.jsonl');
    const w = new JsonlWriter(file);
    const records: unknown[] = [];
    for (let i = 0; i < 3000; i++) records.push({ i, text: `step ${i} — coût ✓ 🚀 ${'x'.repeat(i % 200)}` });
    records.splice(1500, 0, { big: 'é'.repeat(400_000) });
    for (const r of records) w.write(r);
    w.close();
    expect(fs.readFileSync(file, 'utf8')).toBe(records.map((r) => `${JSON.stringify(r)}\n`).join(''));
    expect((await readJsonl(file)).records).toEqual(records);
  });

  it('keeps lines in memory until flush, then appends them whole', () => {
    const file = path.join(tmp, 'flush.jsonl');
    fs.writeFileSync(file, '{"before":true}\n');
    const w = new JsonlWriter(file);
    w.writeLine('{"a":1}\n');
    w.writeLine('{"b":"ü"}\n');
    expect(fs.readFileSync(file, 'utf8')).toBe('{"before":true}\n');
    w.flush();
    expect(fs.readFileSync(file, 'utf8')).toBe('{"before":true}\n{"a":1}\n{"b":"ü"}\n');
    w.flush();
    w.close();
    expect(fs.readFileSync(file, 'utf8')).toBe('{"before":true}\n{"a":1}\n{"b":"ü"}\n');
  });
});

describe("LineBytes and writeBytes (a worker's steps, handed over as bytes)", () => {
  it('collects lines as their UTF-8, growing past its first buffer, and hands them over as a copy of their own', () => {
    const lines = Array.from(
      { length: 500 },
      (_, i) => `${JSON.stringify({ i, text: `coût ✓ 🚀 ${'z'.repeat(i)}` })}\n`,
    );
    const collected = new LineBytes(16);
    for (const line of lines) collected.append(line);
    const bytes = collected.take();
    expect(Buffer.from(bytes).toString('utf8')).toBe(lines.join(''));
    // Exactly the lines, in an ArrayBuffer of their own: structured clone copies no more than that.
    expect(bytes.byteOffset).toBe(0);
    expect(bytes.buffer.byteLength).toBe(Buffer.byteLength(lines.join('')));
    // The collector is emptied, not detached: the next run's lines go into the same buffer.
    collected.append('{"next":1}\n');
    expect(Buffer.from(collected.take()).toString('utf8')).toBe('{"next":1}\n');
    expect(Buffer.from(bytes).toString('utf8')).toBe(lines.join('')); // the copy taken before is untouched
    collected.append('{"dropped":1}\n');
    collected.clear();
    expect(collected.take().byteLength).toBe(0);
  });

  it("appends bytes in order with buffered lines, one larger than the writer's buffer included", () => {
    const file = path.join(tmp, 'bytes.jsonl');
    const w = new JsonlWriter(file);
    const big = new LineBytes();
    for (let i = 0; i < 2000; i++) big.append(`{"i":${i},"t":"${'é'.repeat(200)}"}\n`);
    w.writeLine('{"first":1}\n');
    const bigBytes = big.take();
    w.writeBytes(new LineBytes().take()); // a run with no steps
    w.writeBytes(bigBytes);
    w.writeLine('{"last":1}\n');
    w.close();
    expect(fs.readFileSync(file, 'utf8')).toBe(`{"first":1}\n${Buffer.from(bigBytes).toString('utf8')}{"last":1}\n`);
    expect(bigBytes.byteLength).toBeGreaterThan(256 * 1024);
  });
});

describe('readJsonlLines', () => {
  it('gives each line its byte place, across read chunks and multi-byte text, so it can be read again alone', async () => {
    const file = path.join(tmp, 'places.jsonl');
    // Over 1 MiB (one read chunk), with a line that crosses the chunk boundary.
    const records = Array.from({ length: 4000 }, (_, i) => ({ i, text: `étape ${i} ✓ ${'y'.repeat(i % 300)}` }));
    records.splice(2000, 0, { i: -1, text: 'ü'.repeat(300_000) });
    fs.writeFileSync(file, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
    const seen: Array<{ value: unknown; offset: number; bytes: number }> = [];
    for await (const line of readJsonlLines(file)) if (line.ok) seen.push(line);
    expect(seen.map((l) => l.value)).toEqual(records);
    const picks = [records.length - 1, 2000, 0, 2001, 1999];
    expect([
      ...readJsonlAt(
        file,
        picks.map((k) => seen[k]!),
      ),
    ]).toEqual(picks.map((k) => records[k]));
  });

  it('reads places in file order and backwards alike, read ahead in blocks across a line longer than a block', async () => {
    const file = path.join(tmp, 'ahead.jsonl');
    const records = Array.from({ length: 3000 }, (_, i) => ({ i, text: `pas ${i} → ${'z'.repeat(i % 500)}` }));
    records.splice(1500, 0, { i: -1, text: 'ß'.repeat(400_000) });
    fs.writeFileSync(file, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
    const places: Array<{ offset: number; bytes: number }> = [];
    for await (const line of readJsonlLines(file)) if (line.ok) places.push(line);
    expect([...readJsonlAt(file, places)]).toEqual(records);
    expect([...readJsonlAt(file, [...places].reverse())]).toEqual([...records].reverse());
  });

  it('reads nothing, and needs no file, for no places', () => {
    expect([...readJsonlAt(path.join(tmp, 'absent.jsonl'), [])]).toEqual([]);
  });

  it('numbers bad lines as an editor would, skips blank ones, reads CRLF and a last line without a newline', async () => {
    const file = path.join(tmp, 'mixed.jsonl');
    fs.writeFileSync(file, '{"a":1}\r\n\n{"b":\n{"c":3}\n{"d":4}');
    const out: unknown[] = [];
    for await (const line of readJsonlLines(file)) out.push(line.ok ? line.value : `bad line ${line.line}`);
    expect(out).toEqual([{ a: 1 }, 'bad line 3', { c: 3 }, { d: 4 }]);
  });

  it('skips lines blank to trim() (form feed, no-break space) and reads every other line as JSON.parse does', async () => {
    const file = path.join(tmp, 'spaces.jsonl');
    fs.writeFileSync(file, ' \t\n\f\n\u00a0 \n{"a":1}\n\u00a0{"b":2}\n');
    const out: unknown[] = [];
    for await (const line of readJsonlLines(file)) out.push(line.ok ? line.value : `bad line ${line.line}`);
    expect(out).toEqual([{ a: 1 }, 'bad line 5']);
  });
});

describe('stepLineParser', () => {
  const settings = (seed: number) => ({ scenario: 'é ✓', limits: { max_steps: 3, max_cost_usd: null }, seed });
  const step = (i: number, seed: number) => ({
    run_id: `r${seed}`,
    step: i,
    note: 'a,"settings":{}}',
    settings: settings(seed),
  });

  it('gives what JSON.parse gives: runs changing settings, settings not written last or not as JSON.stringify writes them, damaged lines', async () => {
    const lines = [
      ...[1, 2, 3].map((i) => JSON.stringify(step(i, 1))),
      ...[1, 2].map((i) => JSON.stringify(step(i, 2))),
      // The same tail after a head that is not JSON, after an empty head, and after a head that ends in a string.
      `{"run_id":"r2","step":${JSON.stringify(',"settings":')}${JSON.stringify(step(3, 2)).slice(-60)}`,
      `{,"settings":${JSON.stringify(settings(2))}}`,
      `{ ,"settings":${JSON.stringify(settings(2))}}`,
      `{"x":"y,"settings":${JSON.stringify(settings(2))}}`,
      JSON.stringify({ settings: settings(2), step: 4 }),
      `{"step":5,"settings":${JSON.stringify(settings(2)).replaceAll(',', ', ')}}`,
      `{"step":6 ,"settings":${JSON.stringify(settings(2))}}`,
      `{"settings":1,"step":7,"settings":${JSON.stringify(settings(2))}}`,
      JSON.stringify(step(4, 2)),
    ];
    const file = path.join(tmp, 'steps.jsonl');
    fs.writeFileSync(file, lines.map((l) => `${l}\n`).join(''));
    const parse = stepLineParser();
    const got: unknown[] = [];
    for await (const line of readJsonlLines(file, parse)) got.push(line.ok ? line.value : 'bad');
    const want = lines.map((l) => {
      try {
        return JSON.parse(l) as unknown;
      } catch {
        return 'bad';
      }
    });
    expect(got).toEqual(want);
    // Key order too, as the report's CSV columns follow it.
    expect(got.map((v) => (typeof v === 'object' ? Object.keys(v!) : v))).toEqual(
      want.map((v) => (typeof v === 'object' ? Object.keys(v!) : v)),
    );
    expect(want.filter((v) => v === 'bad').length).toBe(4);
  });
});

describe('stepLine', () => {
  it('is JSON.stringify of the record for any field it may hold: odd numbers, escapes, absent and nested fields, settings anywhere', () => {
    const settings = { scenario: 'é "q"', limits: { max_steps: null }, seed: 1 };
    const records: Array<Record<string, unknown>> = [
      { run_id: 'r', step: 1, cost_usd: 0.1 + 0.2, tiny: 5e-324, big: 1e21, neg: -0, settings },
      { run_id: 'r', nan: NaN, inf: Infinity, ninf: -Infinity, gone: undefined, fn: () => 1, settings },
      {
        settings,
        run_id: 'line\nbreak "quoted" \\ \u0001 \u2028 😀 \ud800 lone',
        step: 2,
        ok: true,
        no: false,
        nil: null,
      },
      { run_id: 'r', usage: { a: [1, 'x', null, undefined], at: new Date(0) }, settings: { ...settings, seed: 2 } },
      { run_id: 'r', settings: null },
      { run_id: 'r', settings: 'not an object' },
      {},
    ];
    // The same settings object a second time (its cached text) and a second run's.
    records.push({ ...records[0], step: 3 }, { ...records[3], step: 4 });
    for (const r of records) expect(stepLine(r as unknown as StepRecord)).toBe(`${JSON.stringify(r)}\n`);
  });

  it('writeStepLine writes the same bytes, whole lines to each sink call, whatever the fields, their order and the line size', () => {
    const settings = { scenario: 'é "q" 😀', limits: { max_steps: null }, seed: 1 };
    const other = { ...settings, seed: 2 };
    const base = { run_id: 'r', config_id: 'c', step: 1, role: 'act', cost_usd: 0.1 + 0.2, action: null };
    const records: Array<Record<string, unknown>> = [];
    for (let i = 0; i < 2000; i++) {
      records.push({ ...base, step: i, fingerprint: `f(${i}) ✓`, settings: i < 1000 ? settings : other });
      // A run's strings changing mid-run, fields of another shape, settings first, alone, absent or not an object.
      if (i % 97 === 0) records.push({ ...base, run_id: `r${i}`, extra: { a: [i] }, settings });
      if (i % 101 === 0) records.push({ settings, ...base, step: i });
      if (i % 103 === 0)
        records.push({ settings }, { ...base }, { ...base, settings: 'text' }, { ...base, settings: null });
      if (i % 499 === 0) records.push({ ...base, fingerprint: 'é'.repeat(100_000), settings });
    }
    const lines: Buffer[] = [];
    const out = new LineBuffer((bytes) => {
      expect(bytes[bytes.length - 1]).toBe(0x0a);
      lines.push(Buffer.from(bytes));
    });
    for (const r of records) writeStepLine(out, r as unknown as StepRecord);
    out.flush();
    expect(lines.length).toBeGreaterThan(1);
    expect(Buffer.concat(lines).toString('utf8')).toBe(records.map((r) => `${JSON.stringify(r)}\n`).join(''));
  });
});
