// The one way loopbench reads a file a user names (scenario, profile, pricing, budgets, prompt
// files, cassette, baseline, saved state): a regular file, read up to a size cap. A device
// (`--scenario /dev/zero`), a FIFO or a directory fails at once instead of reading without end.
import fs from 'node:fs';
import { UsageError } from './errors.ts';

/** Cap for hand-written inputs (YAML, prompts): far above any real one, far below a runaway read. */
export const MAX_INPUT_BYTES = 16 * 1024 * 1024;
/** Cap for machine-written inputs that grow with a sweep (cassettes, baselines). */
export const MAX_RECORDED_BYTES = 256 * 1024 * 1024;

const MIB = 1024 * 1024;

/** Why a file could not be read, for the caller to name in its own one-line message. */
export class InputFileError extends UsageError {
  constructor(
    readonly file: string,
    /** e.g. `ENOENT`, `a device, not a regular file`, `larger than 16 MiB` */
    readonly why: string,
  ) {
    super(`${file}: cannot read file (${why})`);
  }
}

function kindOf(st: fs.Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isFIFO()) return 'a pipe';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * The text of `file`, or an InputFileError saying why not (ENOENT and the like as their code). Opened
 * non-blocking so a FIFO cannot hang the open; files that report no size (/proc) are still
 * read only up to the cap.
 */
export function readInputFile(file: string, maxBytes = MAX_INPUT_BYTES): string {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (e) {
    throw new InputFileError(file, (e as NodeJS.ErrnoException).code ?? String(e));
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new InputFileError(file, `${kindOf(st)}, not a regular file`);
    const tooBig = () => new InputFileError(file, `larger than ${maxBytes / MIB} MiB, the limit for this file`);
    if (st.size > maxBytes) throw tooBig();
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1 << 20, maxBytes + 1 - total));
      const n = fs.readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      total += n;
      if (total > maxBytes) throw tooBig();
      chunks.push(chunk.subarray(0, n));
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } catch (e) {
    if (e instanceof InputFileError) throw e;
    throw new InputFileError(file, (e as NodeJS.ErrnoException).code ?? String(e));
  } finally {
    fs.closeSync(fd);
  }
}
