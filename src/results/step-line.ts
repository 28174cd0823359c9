import { isSpace, OPEN_OBJECT } from '../contracts/json-bytes.ts';
import type { StepRecord } from '../contracts/records.ts';

const settingsJson = new WeakMap<object, string>();
/** How a line ends whose last field is the placeholder stepLine puts in the settings' place. */
const PLACEHOLDER_END = ',"settings":0}';

/**
 * A StepRecord as its steps.jsonl line, byte for byte `JSON.stringify(record)` (a test holds it to
 * that). Every step of a run carries the same settings object (~half a line), so it is serialised once
 * per run: the record is serialised with a placeholder where its settings are, put back at once, and
 * the settings' text spliced in. That needs the settings to be the record's last field, as every
 * writer puts them; a record with them elsewhere, or that cannot take the placeholder, is serialised
 * whole. (Writing the fields one by one here cost ~1.5× this, the line's encoding included.)
 */
export function stepLine(record: StepRecord): string {
  const settings: unknown = record.settings;
  if (typeof settings !== 'object' || settings === null) return `${JSON.stringify(record)}\n`;
  let text = settingsJson.get(settings);
  if (text === undefined) settingsJson.set(settings, (text = JSON.stringify(settings)));
  // Reflect.set: false, not a throw, for a frozen record or a settings field that cannot be written.
  if (!Reflect.set(record, 'settings', 0)) return `${JSON.stringify(record)}\n`;
  let head: string;
  try {
    head = JSON.stringify(record);
  } finally {
    (record as { settings: unknown }).settings = settings;
  }
  // Only the top-level object's last field can come right before the line's last brace.
  if (head === '{"settings":0}') return `{"settings":${text}}\n`;
  if (head.endsWith(PLACEHOLDER_END)) return `${head.slice(0, -PLACEHOLDER_END.length)},"settings":${text}}\n`;
  return `${JSON.stringify(record)}\n`;
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
