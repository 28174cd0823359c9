// A sweep keeps its memory flat by collecting its dead runs' garbage itself (see release-memory.ts).
import v8 from 'node:v8';
import { setImmediate as tick } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { MemoryGuard, releaseMemory } from '../src/runner/release-memory.ts';

const heapUsed = () => v8.getHeapStatistics().used_heap_size;

const MB = 1024 * 1024;

/** Arrays of numbers, held until the caller lets go, until the heap has grown `mb` MB past `from`. */
function allocate(from: number, mb: number): number[][] {
  const held: number[][] = [];
  while (heapUsed() - from < mb * MB)
    for (let i = 0; i < 1024; i++) held.push(Array.from({ length: 64 }, (_, k) => held.length + k + 0.5));
  return held;
}

describe('releaseMemory', () => {
  it('runs a full collection: an object nothing refers to is gone', async () => {
    let target: object | null = { big: new Array(1000).fill('x') };
    const ref = new WeakRef(target);
    target = null;
    await tick();
    releaseMemory();
    await tick();
    expect(ref.deref()).toBeUndefined();
  });
});

describe('MemoryGuard', () => {
  it('counts the old generation only: garbage that dies young never triggers a full collection', () => {
    releaseMemory();
    let collections = 0;
    const guard = new MemoryGuard(1 * MB, () => {
      collections++;
      releaseMemory();
    });
    let young = 0;
    // 64 MB of short-lived arrays, checked after each MB as a sweep checks after each run: the young
    // generation fills and empties many times; a guard that counted it would collect again and again.
    for (let mb = 0; mb < 64; mb++) {
      for (let i = 0; i < 256; i++) young += Array.from({ length: 512 }, (_, k) => k).length;
      guard.check();
    }
    expect(young).toBe(64 * 256 * 512);
    expect(collections).toBe(0);
  });

  it('collects once the heap has grown 64 MB past what the last collection left, not before', async () => {
    releaseMemory();
    const floor = heapUsed();
    const guard = new MemoryGuard();
    let held: number[][] | null = allocate(floor, 16);
    const small = heapUsed();
    held = null;
    guard.check();
    expect(heapUsed()).toBeGreaterThan(small - 4 * MB);
    held = allocate(floor, 80);
    const grown = heapUsed();
    expect(held.length).toBeGreaterThan(0);
    held = null;
    guard.check();
    expect(grown - heapUsed()).toBeGreaterThan(64 * MB);
  });
});
