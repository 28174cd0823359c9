import { isSpace, OPEN_OBJECT } from '../contracts/json-bytes.ts';
import type { StepRecord } from '../contracts/records.ts';
import type { LineBuffer } from './jsonl.ts';

/** A run's settings as stepLine writes them: the text, and the line's end from `,"settings":` on as UTF-8 bytes. */
interface SettingsText {
  json: string;
  tail: Buffer | null;
}
const settingsText = new WeakMap<object, SettingsText>();

/**
 * The last record's keys, each as `{"key":` (the first) or `,"key":`, and its string values' JSON, by
 * position: a run's records have the same keys in the same order and mostly the same strings (run id,
 * configuration, role), so a position whose key (or string) is the last record's reuses its text instead
 * of looking it up or escaping it again.
 */
const lastKeys: string[] = [];
const lastKeyJson: string[] = [];
const lastString: unknown[] = [];
const lastStringJson: string[] = [];

/**
 * A record's line up to its settings, when they are its last field and an object (stepLine's records: the
 * ledger writes them last), with those settings; otherwise the whole line but its closing `}\n`, and null.
 * Either way `{` and then the fields as JSON.stringify writes them.
 */
function stepHead(record: StepRecord): [head: string, settings: object | null] {
  let line = '';
  let i = 0;
  let settings: object | null = null;
  for (const key in record) {
    const v: unknown = record[key as keyof StepRecord];
    let text: string | undefined;
    if (typeof v === 'number') text = Number.isFinite(v) ? String(v) : 'null';
    else if (typeof v === 'string') {
      if (v === lastString[i]) text = lastStringJson[i]!;
      else {
        lastString[i] = v;
        lastStringJson[i] = text = JSON.stringify(v);
      }
    } else if (v === null) text = 'null';
    else if (typeof v === 'boolean') text = v ? 'true' : 'false';
    else if (key === 'settings' && typeof v === 'object') {
      // Held back: written by the caller if no field follows (keys are unique: no settings before these).
      settings = v;
      continue;
    } else text = JSON.stringify(v) as string | undefined; // undefined, a function: no field, as JSON.stringify
    if (text === undefined) continue;
    if (settings) {
      // Counted as a field written: the next key is after a comma.
      line = withSettings(line, settings);
      settings = null;
      i++;
    }
    if (key !== lastKeys[i]) {
      lastKeys[i] = key;
      lastKeyJson[i] = `${i === 0 ? '{' : ','}${JSON.stringify(key)}:`;
    }
    line += lastKeyJson[i]! + text;
    i++;
  }
  return [line, settings];
}

function textOf(settings: object): SettingsText {
  let t = settingsText.get(settings);
  if (t === undefined) settingsText.set(settings, (t = { json: JSON.stringify(settings), tail: null }));
  return t;
}

function withSettings(line: string, settings: object): string {
  return `${line === '' ? '{' : `${line},`}"settings":${textOf(settings).json}`;
}

/**
 * A StepRecord as its steps.jsonl line, byte for byte `JSON.stringify(record)` (a test holds it to
 * that). Every step of a run carries the same settings object, so it is serialised once per run; the
 * record's own fields, numbers and short strings, are written here: JSON.stringify of a copy without
 * the settings cost a copy of ~25 fields a step, and a million-step import writes a million lines.
 */
export function stepLine(record: StepRecord): string {
  return wholeLine(...stepHead(record));
}

/** stepHead's answer as the whole line. */
function wholeLine(head: string, settings: object | null): string {
  const line = settings ? withSettings(head, settings) : head;
  return line === '' ? '{}\n' : `${line}}\n`;
}

/**
 * stepLine's line written into `out`, its settings (~600 of its ~900 bytes) copied as the bytes they
 * were encoded to once per run: encoding them again, after joining them to the rest, cost more than the
 * rest of the line.
 */
export function writeStepLine(out: Pick<LineBuffer, 'writeLine' | 'writeLineParts'>, record: StepRecord): void {
  const [head, settings] = stepHead(record);
  if (settings === null || head === '') return out.writeLine(wholeLine(head, settings));
  const t = textOf(settings);
  t.tail ??= Buffer.from(`,"settings":${t.json}}\n`);
  out.writeLineParts(head, t.tail);
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
