// A results directory made before any work, one level at a time: an impossible or unwritable
// `--out` is a one-line usage error at once. (Node 20's recursive mkdir loops forever at 100 % CPU
// on a path under /proc, where mkdir answers ENOENT for a parent that exists.)
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../contracts/errors.ts';

const WHY: Record<string, string> = {
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  ENOTDIR: 'a part of the path is a file, not a directory',
  // What mkdir answers inside /proc and /sys, where the parent exists but nothing can be created.
  ENOENT: 'this file system does not allow creating directories here',
};

const reason = (e: unknown) => {
  const code = (e as NodeJS.ErrnoException).code;
  return code ? `${WHY[code] ?? 'cannot write here'} (${code})` : String(e);
};

/** Makes `dir` (and missing parents) and proves it writable by creating a file in it; else a UsageError naming `flag`. */
export function makeWritableDir(dir: string, flag: string): void {
  const fail = (what: string, e: unknown): never => {
    throw new UsageError(`${flag} ${dir}: ${what}: ${reason(e)}`);
  };
  const missing: string[] = [];
  let at = path.resolve(dir);
  for (;;) {
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(at);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') fail(`cannot look at ${at}`, e);
    }
    if (st) {
      if (!st.isDirectory()) throw new UsageError(`${flag} ${dir}: ${at} is a file, not a directory`);
      break;
    }
    missing.unshift(at);
    const parent = path.dirname(at);
    if (parent === at) break;
    at = parent;
  }
  for (const d of missing) {
    try {
      fs.mkdirSync(d);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') fail(`cannot create ${d}`, e);
    }
  }
  const probe = path.join(dir, `.loopbench-write-test.${process.pid}`);
  try {
    fs.closeSync(fs.openSync(probe, 'wx'));
    fs.rmSync(probe);
  } catch (e) {
    fail('cannot write files in it', e);
  }
}
