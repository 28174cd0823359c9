// Trajectory files are read whole: only regular files, and only up to a size that fits in memory
// comfortably (token ids and logprobs make real trajectories large, but not gigabytes).
import fs from 'node:fs';

export const MAX_TRAJECTORY_BYTES = 128 * 1024 * 1024;

export function readTrajectoryFile(file: string, maxBytes = MAX_TRAJECTORY_BYTES): string {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch (e) {
    throw new Error(`cannot read file (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  if (!st.isFile()) throw new Error('not a regular file');
  if (st.size > maxBytes) throw new Error(`${st.size} bytes, over the ${maxBytes}-byte limit for one trajectory file`);
  return fs.readFileSync(file, 'utf8');
}
