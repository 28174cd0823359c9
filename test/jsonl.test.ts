// JsonlWriter: lines reach the file whole, in order, only when flushed, whatever their size or script.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonlWriter, readJsonl } from '../src/runner/jsonl.ts';

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
