// A line of steps.jsonl or runs.jsonl read back (`bench report`, `diff`, `merge`, `check --from`) that is JSON
// but not a record of ours — hand-made, from another tool, edited, damaged — is named with its file, line and
// the first field that is missing or wrong, instead of being counted as it is: a negative cost or a number
// written as a string would change every mean and the recommendation. Checked by hand, once per line, for
// what the reports count (a zod parse of a run costs ~16 µs; these checks a fraction of that).
import { UsageError } from '../contracts/errors.ts';
import { IsoStamps } from '../contracts/iso-stamps.ts';
import { STOP_REASONS } from '../contracts/stop-reason.ts';

type Kind = 'string' | 'string?' | 'time?' | 'object' | 'count' | 'count?' | 'amount' | 'number' | 'check' | 'stop';
type Field = { name: string; path: string[]; kind: Kind };
/** Paths split once, not once per line. */
const compile = (fields: Array<[string, Kind]>): Field[] =>
  fields.map(([name, kind]) => ({ name, path: name.split('.'), kind }));

const STOPS: ReadonlySet<unknown> = new Set(STOP_REASONS);
/** Date.parse's answer for the steps' `at`, mostly without it: a run's steps are stamped a day at a time. */
const stamps = new IsoStamps();

/** What a value must be, in the words of the error. */
const EXPECTED: Record<Kind, string> = {
  string: 'a string',
  'string?': 'a string, or absent',
  'time?': 'an ISO 8601 time, or absent',
  object: 'an object',
  count: 'a whole number ≥ 0',
  'count?': 'a whole number ≥ 0, or absent',
  amount: 'a number ≥ 0',
  number: 'a number',
  check: 'true, false or null',
  stop: `one of ${STOP_REASONS.join(', ')}`,
};

function fits(v: unknown, kind: Kind): boolean {
  switch (kind) {
    case 'string':
      return typeof v === 'string';
    case 'string?':
      return v === undefined || typeof v === 'string';
    case 'time?':
      return v === undefined || (typeof v === 'string' && stamps.parse(v) !== null);
    case 'object':
      return typeof v === 'object' && v !== null && !Array.isArray(v);
    case 'count':
      return typeof v === 'number' && Number.isInteger(v) && v >= 0;
    case 'count?':
      return v === undefined || fits(v, 'count');
    case 'amount':
      return typeof v === 'number' && Number.isFinite(v) && v >= 0;
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'check':
      return v === true || v === false || v === null;
    case 'stop':
      return STOPS.has(v);
  }
}

const STEP_FIELDS = compile([
  ['run_id', 'string'],
  ['config_id', 'string'],
  ['settings', 'object'],
  ['settings.limits', 'object'],
  ['step', 'count'],
  ['input_tokens', 'count'],
  ['output_tokens', 'count'],
  ['cached_tokens', 'count'],
  ['cache_write_tokens', 'count?'],
  ['reasoning_tokens', 'count?'],
  ['cum_input_tokens', 'count'],
  ['cost_usd', 'amount'],
  ['cum_cost_usd', 'amount'],
  ['elapsed_ms', 'number'],
  // The spend tables file a call under its model and its day.
  ['model', 'string?'],
  ['at', 'time?'],
]);

const RUN_FIELDS = compile([
  ['run_id', 'string'],
  ['config_id', 'string'],
  ['scenario', 'string'],
  ['settings', 'object'],
  ['settings.limits', 'object'],
  ['settings.repeat', 'count'],
  ['stop_reason', 'stop'],
  ['stop_step', 'count'],
  ['steps', 'count'],
  ['calls', 'count'],
  ['input_tokens', 'count'],
  ['output_tokens', 'count'],
  ['cached_tokens', 'count'],
  // Absent from records written before runs kept them (the report takes them from the steps).
  ['cache_write_tokens', 'count?'],
  ['reasoning_tokens', 'count?'],
  ['cost_usd', 'amount'],
  // Its sign is the importer's to check (timestamps that go backwards); no report sums it.
  ['elapsed_ms', 'number'],
  ['success', 'check'],
]);

/** `"500" (a string)`, `-0.5`, `missing`: the value as the line has it, short. */
function shown(v: unknown): string {
  if (v === undefined) return 'missing';
  const text = JSON.stringify(v) ?? String(v);
  const short = text.length > 40 ? `${text.slice(0, 39)}…` : text;
  return typeof v === 'string' ? `${short} (a string)` : short;
}

function firstWrong(value: unknown, fields: readonly Field[]): { field: Field; value: unknown } | null {
  for (const f of fields) {
    let v: unknown = value;
    for (const key of f.path) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
    if (!fits(v, f.kind)) return { field: f, value: v };
  }
  return null;
}

/** `name`: the file as the message names it (runs.jsonl in a report, the shard's path in a merge). */
function check(name: string, line: number, value: unknown, fields: readonly Field[], what: string): void {
  const wrong = firstWrong(value, fields);
  if (!wrong) return;
  const where = `${name} line ${line}`;
  const { field, value: v } = wrong;
  // A line without what identifies a record is not one of ours at all; one with a bad figure is a damaged record.
  if (v === undefined) throw new UsageError(`${where}: not a ${what} record (no ${field.name})`);
  throw new UsageError(
    `${where}: ${field.name} is ${shown(v)}, expected ${EXPECTED[field.kind]} (the ${what} record is not read as it is)`,
  );
}

export const checkStepRecord = (name: string, line: number, value: unknown) =>
  check(name, line, value, STEP_FIELDS, 'step');
/** Whether checkStepRecord would pass the value (a step pass fed as the lines are written checks what reading them would). */
export const fitsStepRecord = (value: unknown) => firstWrong(value, STEP_FIELDS) === null;
export const checkRunRecord = (name: string, line: number, value: unknown) =>
  check(name, line, value, RUN_FIELDS, 'run');
