// The suite starts python3 hundreds of times, from the CLIs it runs and from the agents and coding
// clients those start. Where `python3` on PATH is a version manager's shim (pyenv's is a bash script
// that costs ~0.3 s of CPU a start, the interpreter ~0.06 s), the children are given a directory that
// holds only `python3`, a link to the interpreter the shim starts, ahead of the shim: the same
// interpreter, without the shim's work at each start. Where python3 is the interpreter itself, PATH is left alone.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** The first file named `name` that PATH finds, or null. */
function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const file = path.join(dir || '.', name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      if (fs.statSync(file).isFile()) return file;
    } catch {
      /* not here */
    }
  }
  return null;
}

const isScript = (file: string) => {
  const head = Buffer.alloc(2);
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, head, 0, 2, 0);
  } finally {
    fs.closeSync(fd);
  }
  return head.toString('latin1') === '#!';
};

/** Puts the interpreter behind a python3 shim first on this process's PATH (children inherit it); returns the undo. */
export function pythonBehindShimFirst(): () => void {
  const found = onPath('python3');
  if (!found || !isScript(found)) return () => {};
  let real: string;
  try {
    real = execFileSync(found, ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
  } catch {
    return () => {}; // a shim that cannot start python: the tests that need python say so themselves
  }
  if (!real || isScript(real)) return () => {};
  // Not under /tmp: run_python's sandbox mounts an empty /tmp, where the link would not be found.
  // .vitest-* is ignored by git.
  const dir = fs.mkdtempSync(path.join(import.meta.dirname, '..', '..', '.vitest-python3-'));
  fs.symlinkSync(real, path.join(dir, 'python3'));
  const before = process.env.PATH;
  process.env.PATH = `${dir}${path.delimiter}${before ?? ''}`;
  return () => {
    process.env.PATH = before;
    fs.rmSync(dir, { recursive: true, force: true });
  };
}
