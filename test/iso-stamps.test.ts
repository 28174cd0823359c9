// IsoStamps reads and writes timestamps exactly as Date.parse and toISOString do, over stamps in
// toISOString's form on the same day and across days, and odd ones it must leave to Date.
import { describe, expect, it } from 'vitest';
import { IsoStamps } from '../src/contracts/iso-stamps.ts';
import { mulberry32 } from '../src/stats/random.ts';

const asDate = (t: string | null | undefined): number | null => {
  const v = t ? Date.parse(t) : NaN;
  return Number.isFinite(v) ? v : null;
};

const ODD = [
  '2026-01-01T24:00:00.000Z',
  '2026-01-01T24:00:00.001Z',
  '2026-01-01T23:60:00.000Z',
  '2026-01-01T23:59:60.000Z',
  '2026-01-01T12:00:60.000Z',
  '2026-01-01T12:60:00.000Z',
  '2026-01-01T23:59:59.999Z',
  '2026-01-01T00:00:00.000Z',
  '2026-01-01T00:00:00.000z',
  '2026-01-01T00:00:00.000+',
  '2026-01-01T00:00:00Z',
  '2026-01-01T00:00:00.00Z',
  '2026-01-01T00:00:00.0000Z',
  '2026-01-01 00:00:00.000Z',
  '2026-01-01T00:00:0a.000Z',
  '2026-01-01T0٠:00:00.000Z',
  '2026-01-01T-1:00:00.000Z',
  '2026-01-01T00:-1:00.000Z',
  '2026-01-01T00:00:00.-01Z',
  '2026-01-01T00:00:00,000Z',
  '2026-01-01T00;00:00.000Z',
  '2026-01-01T00:00:00.000',
  '2026-01-01',
  '2026-02-30T12:00:00.000Z',
  '2026-13-01T12:00:00.000Z',
  '+002026-01-01T00:00:00.000Z',
  '0000-01-01T00:00:00.000Z',
  '9999-12-31T23:59:59.999Z',
  '-000001-01-01T00:00:00.000Z',
  'Thu, 01 Jan 2026 00:00:00 GMT',
  'not a time',
  '',
  null,
  undefined,
];

describe('IsoStamps', () => {
  it('parse is Date.parse and iso is toISOString, stamp after stamp, on one day, across days and for odd forms', () => {
    const next = mulberry32(7);
    const stamps = new IsoStamps();
    let at = Date.UTC(2026, 0, 1, 23, 0, 0);
    let checked = 0;
    for (let i = 0; i < 20_000; i++) {
      const r = next();
      // Mostly a step later on the same day; sometimes days on or back, an odd stamp, or far years.
      at += r < 0.9 ? Math.floor(next() * 5000) : r < 0.95 ? Math.floor((next() - 0.3) * 5 * 86_400_000) : 0;
      const t =
        r > 0.99
          ? ODD[Math.floor(next() * ODD.length)]
          : r > 0.985
            ? new Date(Math.floor((next() - 0.5) * 2e14)).toISOString()
            : new Date(at).toISOString();
      const parsed = stamps.parse(t);
      expect(parsed).toBe(asDate(t));
      if (parsed !== null) expect(stamps.iso(parsed, t)).toBe(new Date(parsed).toISOString());
      // A stamp given with another time than its own: written from the time, never the stamp.
      expect(stamps.iso(at + 1, t)).toBe(new Date(at + 1).toISOString());
      checked++;
    }
    expect(checked).toBe(20_000);
  });

  it('takes each odd form to Date, on the day it names and on another', () => {
    for (const day of ['2026-01-01T12:00:00.000Z', '2026-01-02T12:00:00.000Z', '2026-02-28T12:00:00.000Z']) {
      const stamps = new IsoStamps();
      for (const t of ODD) {
        // Back on the day first: writing the stamp before moved the day IsoStamps reads without Date.
        stamps.iso(Date.parse(day), day);
        expect(stamps.parse(t)).toBe(asDate(t));
        const v = asDate(t);
        if (v !== null) expect(stamps.iso(v, t)).toBe(new Date(v).toISOString());
      }
    }
  });

  it('writes the millisecond before the day it knows from the time, not from a stamp in another form', () => {
    const stamps = new IsoStamps();
    const day = Date.UTC(2026, 0, 1);
    stamps.iso(day + 5000, '2026-01-01T00:00:05.000Z');
    const t = '2025-12-31T23:59:59.999+00:00';
    expect(stamps.parse(t)).toBe(day - 1);
    expect(stamps.iso(day - 1, t)).toBe('2025-12-31T23:59:59.999Z');
  });
});
