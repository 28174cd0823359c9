// A line of steps.jsonl or runs.jsonl that is JSON but not a record of ours (hand-made, from another
// tool, damaged): named with its file, line and the first field missing, instead of a crash deep
// in an aggregate. Only the fields the reports read are checked, cheaply, once per line.
import path from 'node:path';
import { UsageError } from '../contracts/errors.ts';

type Kind = 'string' | 'number' | 'object';

const STEP_FIELDS: Array<[string, Kind]> = [
  ['run_id', 'string'],
  ['config_id', 'string'],
  ['scenario', 'string'],
  ['step', 'number'],
  ['input_tokens', 'number'],
  ['output_tokens', 'number'],
  ['cached_tokens', 'number'],
  ['settings', 'object'],
  ['settings.limits', 'object'],
];

const RUN_FIELDS: Array<[string, Kind]> = [
  ['run_id', 'string'],
  ['config_id', 'string'],
  ['scenario', 'string'],
  ['steps', 'number'],
  ['input_tokens', 'number'],
  ['output_tokens', 'number'],
  ['cost_usd', 'number'],
  ['settings', 'object'],
  ['settings.limits', 'object'],
  ['settings.repeat', 'number'],
];

function firstMissing(value: unknown, fields: Array<[string, Kind]>): string | null {
  for (const [field, kind] of fields) {
    let v: unknown = value;
    for (const key of field.split('.')) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
    if (typeof v !== kind || v === null) return field;
  }
  return null;
}

function check(file: string, line: number, value: unknown, fields: Array<[string, Kind]>, what: string): void {
  const missing = firstMissing(value, fields);
  if (missing) throw new UsageError(`${path.basename(file)} line ${line}: not a ${what} record (no ${missing})`);
}

export const checkStepRecord = (file: string, line: number, value: unknown) => check(file, line, value, STEP_FIELDS, 'step');
export const checkRunRecord = (file: string, line: number, value: unknown) => check(file, line, value, RUN_FIELDS, 'run');
