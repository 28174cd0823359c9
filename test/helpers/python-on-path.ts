// The suite starts python3 hundreds of times, from the CLIs it runs and from the agents and coding
// clients those start. Where `python3` on PATH is a version manager's shim (pyenv's is a bash script
// that costs ~0.3 s of CPU a start, the interpreter ~0.06 s), the children are given a directory that
// holds only `python3`, a link to the interpreter the shim starts, ahead of the shim: the same
// interpreter, without the shim's work at each start. Where python3 is the interpreter itself, PATH is left alone.
import fs from 'node:fs';
import path from 'node:path';
import { findPython3 } from '../../src/tools/python-path.ts';

/** Puts the interpreter behind a python3 shim first on this process's PATH (children inherit it); returns the undo. */
export function pythonBehindShimFirst(): () => void {
  const { onPath, interpreter } = findPython3();
  // No python3, a program already, or a shim that cannot start one: the tests that need python say so themselves.
  if (!onPath || !interpreter || interpreter === onPath) return () => {};
  // Not under /tmp: run_python's sandbox mounts an empty /tmp, where the link would not be found.
  // .vitest-* is ignored by git.
  const dir = fs.mkdtempSync(path.join(import.meta.dirname, '..', '..', '.vitest-python3-'));
  fs.symlinkSync(interpreter, path.join(dir, 'python3'));
  const before = process.env.PATH;
  process.env.PATH = `${dir}${path.delimiter}${before ?? ''}`;
  return () => {
    process.env.PATH = before;
    fs.rmSync(dir, { recursive: true, force: true });
  };
}
