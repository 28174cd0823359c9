// A growing column keeps its type and values, and fills only what it adds (a step's "last run" starts at -1).
import { describe, expect, it } from 'vitest';
import { grownTo } from '../src/contracts/typed-arrays.ts';
import { ByteRanges } from '../src/trajectories/json-stream.ts';

describe('grownTo', () => {
  it('keeps the type and the values, then zeros or the fill given', () => {
    const ints = grownTo(Int32Array.of(-1, 7), 4, -1);
    expect(ints).toBeInstanceOf(Int32Array);
    expect([...ints]).toEqual([-1, 7, -1, -1]);
    const wide = grownTo(Float64Array.of(0.5, 2 ** 40), 3);
    expect(wide).toBeInstanceOf(Float64Array);
    expect([...wide]).toEqual([0.5, 2 ** 40, 0]);
    expect([...grownTo(Uint32Array.of(0xffffffff), 2)]).toEqual([0xffffffff, 0]);
  });

  it('lets byte ranges grow past their first columns, every range kept', () => {
    const r = new ByteRanges();
    for (let i = 0; i < 1000; i++) r.push(2 ** 33 + i * 10, 2 ** 33 + i * 10 + i);
    expect(r.length).toBe(1000);
    expect([r.start(0), r.bytes(0), r.start(999), r.bytes(999)]).toEqual([2 ** 33, 0, 2 ** 33 + 9990, 999]);
    expect(Array.from({ length: 1000 }, (_, i) => r.bytes(i))).toEqual(Array.from({ length: 1000 }, (_, i) => i));
  });
});
