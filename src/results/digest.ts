import { createHash } from 'node:crypto';
import type { Scenario } from '../scenario/schema.ts';

/** Content digest of a scenario (not its file path): a changed prompt gives a different digest. */
export function scenarioDigest(s: Scenario): string {
  const { file: _file, ...content } = s;
  return createHash('sha256').update(JSON.stringify(content)).digest('hex').slice(0, 16);
}
