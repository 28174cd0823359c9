// A budgets file arrives with a pull request: the files it names (scenario, system_file, goal_file)
// are read, sent to a model and kept in transcripts. So each must be a regular file inside the
// budgets file's directory tree or the working directory (symlinks resolved), unless the user says
// otherwise with --allow-outside-files. Otherwise `system_file: /proc/self/environ` would copy the
// environment, keys included, into a prompt.
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../contracts/errors.ts';

export const ALLOW_OUTSIDE_FLAG = '--allow-outside-files';

const inside = (root: string, p: string) => {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

/** The real path of `relative` (from the budgets file's directory), checked; `where` is `file: field` for errors. */
export function namedFile(budgetsFile: string, relative: string, where: string, allowOutside: boolean): string {
  const given = path.resolve(path.dirname(budgetsFile), relative);
  let real: string;
  let stat: fs.Stats;
  try {
    real = fs.realpathSync(given);
    stat = fs.statSync(real);
  } catch (e) {
    throw new UsageError(`${where}: cannot read ${relative} (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  if (!stat.isFile()) throw new UsageError(`${where}: ${relative} is not a regular file`);
  if (allowOutside) return real;
  const roots = [path.dirname(fs.realpathSync(budgetsFile)), fs.realpathSync(process.cwd())];
  if (!roots.some((root) => inside(root, real)))
    throw new UsageError(
      `${where}: ${relative} is outside the budgets file's directory and the working directory (pass ${ALLOW_OUTSIDE_FLAG} to read it anyway)`,
    );
  return real;
}
