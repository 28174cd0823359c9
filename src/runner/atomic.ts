import fs from 'node:fs';
import path from 'node:path';

/** Write to a temporary name, then rename: a reader never sees half a file. */
export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  fs.writeFileSync(tmp, data);
  fs.renameSync(tmp, file);
}

export const writeJsonAtomic = (file: string, value: unknown) => writeFileAtomic(file, `${JSON.stringify(value, null, 2)}\n`);
