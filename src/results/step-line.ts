import type { StepRecord } from '../contracts/records.ts';
import type { Settings } from '../contracts/settings.ts';

const settingsJson = new WeakMap<Settings, string>();

/**
 * A StepRecord as its steps.jsonl line, byte for byte `JSON.stringify(record)`. Every step of a run
 * carries the same settings object, so it is serialised once per run and spliced in (settings is
 * the record's last field) instead of once per step.
 */
export function stepLine(record: StepRecord): string {
  const { settings, ...rest } = record;
  let s = settingsJson.get(settings);
  if (s === undefined) settingsJson.set(settings, (s = JSON.stringify(settings)));
  return `${JSON.stringify(rest).slice(0, -1)},"settings":${s}}\n`;
}
