import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** The package root, so data files are found whatever the working directory: the nearest folder up
 * from this module that holds the data directory (src/contracts/ when run from source, dist/ when bundled). */
function findRoot(): string {
  const start = path.dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'data'))) return dir;
    if (path.dirname(dir) === dir) return path.resolve(start, '..');
  }
}

export const ROOT = findRoot();
/** gpt-tokenizer's o200k_base ranks as a packed table (src/meter/rank-table.ts), written by scripts/build.mjs for that package version. */
export const ranksFile = (version: string) => path.join(ROOT, 'dist', `o200k_base-${version}.ranks`);
export const dataPath = (...p: string[]) => path.join(ROOT, 'data', ...p);
export const scenariosDir = () => path.join(ROOT, 'scenarios');

let version: string | undefined;
/** loopbench's own version, from its package.json. */
export function ownVersion(): string {
  version ??= (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  return version;
}
