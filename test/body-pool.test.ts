// The gateway's request bodies in reused buffers: a large body's buffer goes back to the pool only
// when every holder of its lease has let go (the call, and the upstream request writing it), and
// the next body is joined into it with its own bytes.
import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { BodyPool } from '../src/wire/body-pool.ts';

const chunks = (text: string, size: number) => {
  const b = Buffer.from(text);
  const out: Buffer[] = [];
  for (let i = 0; i < b.length; i += size) out.push(b.subarray(i, i + size));
  return out;
};

describe('BodyPool', () => {
  it('joins chunks into the bytes that came, pooled only when large', () => {
    const pool = new BodyPool();
    const small = 'x'.repeat(100);
    const lease = pool.join(chunks(small, 30), 100);
    expect(lease.bytes.toString()).toBe(small);
    lease.drop();
    expect(pool.size).toBe(0);
    const single = Buffer.from('y'.repeat(40_000));
    expect(pool.join([single], single.length).bytes).toBe(single);
  });

  it('reuses a large body’s buffer once its last holder lets go, and never while one holds it', () => {
    const pool = new BodyPool();
    const first = 'a'.repeat(50_000);
    const lease = pool.join(chunks(first, 16_384), 50_000);
    expect(lease.bytes.toString()).toBe(first);
    const upstream = lease.hold();
    lease.drop();
    lease.drop();
    // Still held by the upstream request: a second body gets a buffer of its own.
    const second = pool.join(chunks('b'.repeat(50_000), 16_384), 50_000);
    expect(second.bytes.buffer).not.toBe(lease.bytes.buffer);
    expect(lease.bytes.toString()).toBe(first);
    upstream();
    upstream();
    expect(pool.size).toBe(1);
    // A body a little longer (the conversation grew) is joined into the freed buffer, with its own bytes.
    const third = 'c'.repeat(51_000);
    const reused = pool.join(chunks(third, 16_384), 51_000);
    expect(reused.bytes.buffer).toBe(lease.bytes.buffer);
    expect(reused.bytes.toString()).toBe(third);
    expect(pool.size).toBe(0);
  });

  it('keeps no more idle bytes than its bound', () => {
    const pool = new BodyPool(60_000);
    const leases = [1, 2, 3].map(() => pool.join(chunks('d'.repeat(40_000), 16_384), 40_000));
    for (const l of leases) l.drop();
    expect(pool.size).toBe(1);
  });
});
