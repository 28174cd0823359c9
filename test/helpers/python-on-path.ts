// The suite starts python3 hundreds of times, from the CLIs it runs and from the agents and coding
// clients those start. Where `python3` on PATH is a version manager's shim (pyenv's is a bash script
// that costs ~0.3 s of CPU a start, the interpreter ~0.06 s), the children are given a directory that
// holds only `python3`, a link to the interpreter the shim starts, ahead of the shim: the same
// interpreter, without the shim's work at each start. Where python3 is the interpreter itself, PATH is left alone.
import fs from 'node:fs';
import path from 'node:path';
import { findPython3 } from '../../src/tools/python-path.ts';

/**
 * A new directory for the link outside /tmp, where run_python's sandbox mounts an empty file system (a
 * clone under /tmp, as CI's may be, would hide it): the repository's root (`.vitest-*` is ignored by
 * git), else /var/tmp; null when neither will do (the shim is then left in place).
 */
function linkDir(): string | null {
  const outsideTmp = (dir: string) => dir !== '/tmp' && !dir.startsWith('/tmp/');
  for (const base of [path.resolve(import.meta.dirname, '..', '..'), '/var/tmp'].filter(outsideTmp))
    try {
      return fs.mkdtempSync(path.join(base, '.vitest-python3-'));
    } catch {
      /* not writable here: the next */
    }
  return null;
}

/** Puts the interpreter behind a python3 shim first on this process's PATH (children inherit it); returns the undo. */
export function pythonBehindShimFirst(): () => void {
  const { onPath, interpreter } = findPython3();
  // No python3, a program already, or a shim that cannot start one: the tests that need python say so themselves.
  if (!onPath || !interpreter || interpreter === onPath) return () => {};
  const dir = linkDir();
  if (!dir) return () => {};
  fs.symlinkSync(interpreter, path.join(dir, 'python3'));
  const before = process.env.PATH;
  process.env.PATH = `${dir}${path.delimiter}${before ?? ''}`;
  return () => {
    process.env.PATH = before;
    fs.rmSync(dir, { recursive: true, force: true });
  };
}
