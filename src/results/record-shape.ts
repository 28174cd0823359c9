// A line of steps.jsonl or runs.jsonl that is JSON but not a record of ours (hand-made, from another
// tool, damaged): named with its file, line and the first field missing, instead of a crash deep
// in an aggregate. Checked cheaply, once per line: what identifies a record and the objects the reports reach into.
import path from 'node:path';
import { UsageError } from '../contracts/errors.ts';

type Kind = 'string' | 'number' | 'object';
type Field = { name: string; path: string[]; kind: Kind };
/** Paths split once, not once per line. */
const compile = (fields: Array<[string, Kind]>): Field[] => fields.map(([name, kind]) => ({ name, path: name.split('.'), kind }));

const STEP_FIELDS = compile([
  ['run_id', 'string'],
  ['config_id', 'string'],
  ['step', 'number'],
  ['input_tokens', 'number'],
  ['settings', 'object'],
  ['settings.limits', 'object'],
]);

const RUN_FIELDS = compile([
  ['run_id', 'string'],
  ['config_id', 'string'],
  ['settings', 'object'],
  ['settings.limits', 'object'],
  ['settings.repeat', 'number'],
]);

function firstMissing(value: unknown, fields: readonly Field[]): string | null {
  for (const f of fields) {
    let v: unknown = value;
    for (const key of f.path) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
    if (typeof v !== f.kind || v === null) return f.name;
  }
  return null;
}

function check(file: string, line: number, value: unknown, fields: readonly Field[], what: string): void {
  const missing = firstMissing(value, fields);
  if (missing) throw new UsageError(`${path.basename(file)} line ${line}: not a ${what} record (no ${missing})`);
}

export const checkStepRecord = (file: string, line: number, value: unknown) => check(file, line, value, STEP_FIELDS, 'step');
export const checkRunRecord = (file: string, line: number, value: unknown) => check(file, line, value, RUN_FIELDS, 'run');
