// Trajectory files and chat logs are machine-written and grow with the traffic they record: read
// through the one input reader with the larger cap (token ids and logprobs make trajectories large).
import { InputFileError, MAX_RECORDED_BYTES, readInputFile } from '../contracts/input-file.ts';

/** The file's text; an Error whose message is only the reason (the caller names the file). */
export function readTrajectoryFile(file: string): string {
  try {
    return readInputFile(file, MAX_RECORDED_BYTES);
  } catch (e) {
    throw new Error(e instanceof InputFileError ? `cannot read file (${e.why})` : String(e));
  }
}
