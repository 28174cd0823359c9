// A child process of `bench perf` (the workers row's ceiling): the scale sweep's sweep phase in a
// fresh process, timed as timeSweep times it in process, printed as JSON (a SweepTiming).
// Usage: node dist/perf-sweep.js REPEAT WORKERS
import { sweepFlags } from './scale.ts';
import { timeSweep } from './sweep.ts';

const [repeat, workers] = process.argv.slice(2).map(Number);
process.stdout.write(JSON.stringify(await timeSweep(sweepFlags(repeat!), undefined, workers)));
