import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** The package root, so data files are found whatever the working directory. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const dataPath = (...p: string[]) => path.join(ROOT, 'data', ...p);
export const scenariosDir = () => path.join(ROOT, 'scenarios');
