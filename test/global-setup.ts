// Tests that run `bench` as a child process run bin/bench.js, i.e. the bundle in dist/: rebuild it
// from the sources under test first, so no test ever exercises a stale bundle. The test processes
// inherit this one's environment: python3 on their PATH is the interpreter, not a shim (python-on-path.ts).
import { buildBench } from '../scripts/build.mjs';
import { pythonBehindShimFirst } from './helpers/python-on-path.ts';

export default async function setup(): Promise<() => void> {
  const undo = pythonBehindShimFirst();
  await buildBench();
  return undo;
}
