import { isSpace, OPEN_OBJECT } from '../contracts/json-bytes.ts';
import type { StepRecord } from '../contracts/records.ts';

const settingsJson = new WeakMap<object, string>();
/** `"key":` per field name, built once. */
const keyJson = new Map<string, string>();

/**
 * A StepRecord as its steps.jsonl line, byte for byte `JSON.stringify(record)` (a test holds it to
 * that). Every step of a run carries the same settings object, so it is serialised once per run; the
 * record's own fields, numbers and short strings, are written here: JSON.stringify of a copy without
 * the settings cost a copy of ~25 fields a step, and a million-step import writes a million lines.
 */
export function stepLine(record: StepRecord): string {
  let line = '';
  for (const key in record) {
    const v: unknown = record[key as keyof StepRecord];
    let text: string | undefined;
    if (typeof v === 'number') text = Number.isFinite(v) ? String(v) : 'null';
    else if (typeof v === 'string') text = JSON.stringify(v);
    else if (v === null) text = 'null';
    else if (typeof v === 'boolean') text = v ? 'true' : 'false';
    else if (key === 'settings' && typeof v === 'object') {
      text = settingsJson.get(v);
      if (text === undefined) settingsJson.set(v, (text = JSON.stringify(v)));
    } else text = JSON.stringify(v) as string | undefined; // undefined, a function: no field, as JSON.stringify
    if (text === undefined) continue;
    let k = keyJson.get(key);
    if (k === undefined) keyJson.set(key, (k = `${JSON.stringify(key)}:`));
    line += line === '' ? `{${k}${text}` : `,${k}${text}`;
  }
  return line === '' ? '{}\n' : `${line}}\n`;
}

const SETTINGS_KEY = ',"settings":';
/** After this many lines in a row whose settings were not written as stepLine writes them, stop looking. */
const GIVE_UP_AFTER = 16;

/**
 * Parses steps.jsonl lines, each run's settings once: a run's lines end in the same bytes
 * (`,"settings":{…}}`, ~860 of a line's ~1,100), so a line ending in the bytes the last full parse
 * ended in is parsed without them and given that parse's settings object (shared, read-only). The
 * value is the one JSON.parse gives the whole line: the same bytes parse to the same settings, and
 * a line that is not JSON still throws. Lines written otherwise (by hand) are parsed whole.
 */
export function stepLineParser(): (bytes: Buffer) => unknown {
  let tail: Buffer | null = null;
  let settings: unknown;
  let misses = 0;
  return (bytes) => {
    if (tail && endsWith(bytes, tail)) {
      const headEnd = bytes.length - tail.length;
      // `{` + tail would not be JSON: parsed whole below, where it throws.
      if (lastNonSpace(bytes, headEnd) !== OPEN_OBJECT) {
        const head = JSON.parse(`${bytes.toString('utf8', 0, headEnd)}}`) as Record<string, unknown>;
        head.settings = settings;
        return head;
      }
    }
    const value: unknown = JSON.parse(bytes.toString('utf8'));
    if (misses < GIVE_UP_AFTER) {
      const s = (value as { settings?: unknown } | null)?.settings;
      const written = s !== undefined && Buffer.from(`${SETTINGS_KEY}${JSON.stringify(s)}}`);
      if (written && endsWith(bytes, written)) {
        tail = written;
        settings = s;
        misses = 0;
      } else misses++;
    }
    return value;
  };
}

function endsWith(bytes: Buffer, end: Buffer): boolean {
  return bytes.length > end.length && bytes.compare(end, 0, end.length, bytes.length - end.length) === 0;
}

function lastNonSpace(bytes: Buffer, end: number): number | undefined {
  let i = end - 1;
  while (i >= 0 && isSpace(bytes[i])) i--;
  return bytes[i];
}
