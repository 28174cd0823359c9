// Which interpreter `python3` is, found once per process: run_python starts it for every call, so a
// version manager's shim in between (pyenv's is a bash script, ~0.3 s of CPU a start against ~0.06 s
// for Python) would be paid at each one.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { scrubbedEnv } from './scrub-env.ts';

export interface Python3 {
  /** The file PATH names `python3` (absolute), or null. */
  onPath: string | null;
  /** The interpreter it runs: the file itself when it is a program; when it is a script, the one it starts, asked once; null when none answered. */
  interpreter: string | null;
}

/** How long a shim may take to say which interpreter it starts: one that hangs is then not asked again. */
const ASK_TIMEOUT_MS = 10_000;

/** `python3` on this PATH and the interpreter behind it; a program is not started to find out. */
export function findPython3(searchPath = process.env.PATH ?? '', askTimeoutMs = ASK_TIMEOUT_MS): Python3 {
  const onPath = firstOnPath('python3', searchPath);
  if (onPath && !isScript(onPath)) return { onPath, interpreter: onPath };
  try {
    const said = execFileSync(onPath ?? 'python3', ['-c', 'import sys; print(sys.executable)'], {
      encoding: 'utf8',
      env: { ...scrubbedEnv(process.env), PATH: searchPath },
      timeout: askTimeoutMs,
    }).trim();
    return { onPath, interpreter: said || null };
  } catch {
    return { onPath, interpreter: null };
  }
}

/** The first executable file named `name` in the path's directories, absolute (run_python starts it from its own working directory), or null. */
function firstOnPath(name: string, searchPath: string): string | null {
  for (const dir of searchPath.split(path.delimiter)) {
    const file = path.resolve(dir || '.', name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      if (fs.statSync(file).isFile()) return file;
    } catch {
      /* not in this directory */
    }
  }
  return null;
}

/** Whether `file` starts with `#!` (a script run by the interpreter it names); unreadable counts as one, so it is asked. */
function isScript(file: string): boolean {
  const head = Buffer.alloc(2);
  try {
    const fd = fs.openSync(file, 'r');
    try {
      fs.readSync(fd, head, 0, 2, 0);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return true;
  }
  return head.toString('latin1') === '#!';
}
