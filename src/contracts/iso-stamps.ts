// Timestamps read as Date.parse reads them and written as toISOString writes them, without asking either
// for most: a trajectory's steps are stamped in toISOString's own form, a day's worth of steps at a time,
// and a million-step import parsed and re-wrote a million of them (about 0.7 µs a step). Only a stamp in
// exactly that form, on the day last met, is read here; any other goes to Date itself.

/** A UTC day in milliseconds (no leap seconds in JavaScript's time). */
export const DAY_MS = 86_400_000;
const COLON = 0x3a;
const DOT = 0x2e;
const ZERO = 0x30;

/** The number the digits from `at` to `end` (exclusive) spell; NaN unless all are digits. */
function digits(t: string, at: number, end: number): number {
  let n = 0;
  for (let i = at; i < end; i++) {
    const d = t.charCodeAt(i) - ZERO;
    if (!(d >= 0 && d <= 9)) return NaN;
    n = n * 10 + d;
  }
  return n;
}

/**
 * `parse(t)` is `Date.parse(t)`, finite or null; `iso(at, t)` is `new Date(at).toISOString()`, and is `t`
 * itself when `t` is that already. Exact: a stamp `YYYY-MM-DDTHH:MM:SS.mmmZ` whose date part is the one
 * toISOString gave for the day last met, and whose time fields are each in range (hour < 24, minute and
 * second < 60), has a single time of day, which Date reads the same and toISOString writes back digit
 * for digit; anything else (another day, another form, a field out of range) is Date's to read. The day
 * is learnt from the last stamp of that form Date read, or the last time written.
 */
export class IsoStamps {
  /** `YYYY-MM-DDT` as toISOString wrote it for the day starting at `dayStart`; '' before the first. */
  private prefix = '';
  private dayStart = NaN;

  /** The milliseconds into the prefix's day `t` stands for, or -1 when it is not in that day's exact form. */
  private timeOfDay(t: string): number {
    if (t.length !== 24 || this.prefix === '' || !t.startsWith(this.prefix)) return -1;
    if (t.charCodeAt(13) !== COLON || t.charCodeAt(16) !== COLON || t.charCodeAt(19) !== DOT || t[23] !== 'Z')
      return -1;
    const h = digits(t, 11, 13);
    const m = digits(t, 14, 16);
    const s = digits(t, 17, 19);
    const ms = digits(t, 20, 23);
    // NaN fails every comparison.
    if (!(h < 24 && m < 60 && s < 60 && ms >= 0)) return -1;
    return ((h * 60 + m) * 60 + s) * 1000 + ms;
  }

  parse(t: string | null | undefined): number | null {
    if (!t) return null;
    const tod = this.timeOfDay(t);
    if (tod >= 0) return this.dayStart + tod;
    const v = Date.parse(t);
    if (!Number.isFinite(v)) return null;
    // A stamp in toISOString's form on another day: that day is the one read without Date from now on.
    if (t.length === 24 && t[23] === 'Z' && t[10] === 'T') this.learn(v);
    return v;
  }

  iso(at: number, t?: string | null): string {
    // Before the day (-1: a millisecond before it) is not in it, whatever timeOfDay says of `t`.
    const tod = at - this.dayStart;
    if (t && tod >= 0 && tod < DAY_MS && this.timeOfDay(t) === tod) return t;
    return this.learn(at);
  }

  /** `new Date(at).toISOString()`, its day then the one read without Date. */
  private learn(at: number): string {
    const iso = new Date(at).toISOString();
    // The day's form only when toISOString writes a four-digit year (0000 to 9999).
    if (iso.length === 24) {
      this.prefix = iso.slice(0, 11);
      this.dayStart = Math.floor(at / DAY_MS) * DAY_MS;
    }
    return iso;
  }
}
