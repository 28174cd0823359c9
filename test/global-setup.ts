// Tests that run `bench` as a child process run bin/bench.js, i.e. the bundle in dist/: rebuild it
// from the sources under test first, so no test ever exercises a stale bundle.
import { buildBench } from '../scripts/build.mjs';

export default async function setup(): Promise<void> {
  await buildBench();
}
