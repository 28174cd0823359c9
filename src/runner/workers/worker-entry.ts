// A sweep worker thread: runs the simulated or replayed runs it is sent, each as the main thread
// would (its own token counter and tool registries; the tokenizer's rank table is the main
// thread's, in shared memory), and posts back the step lines, the record and the transcript. The
// main thread writes them, so files have one writer.
import { parentPort, workerData } from 'node:worker_threads';
import { TokenCounter, useSharedRanks } from '../../meter/tokens.ts';
import { Cassette } from '../../models/cassette.ts';
import { DEFAULT_TRANSPORT, type ModelTransport } from '../../models/factory.ts';
import { LineBytes } from '../../results/line-bytes.ts';
import { stepLine } from '../../results/step-line.ts';
import type { Scenario } from '../../scenario/schema.ts';
import { ToolRegistry } from '../../tools/registry.ts';
import { executeRun } from '../run-one.ts';
import { MemoryGuard } from '../release-memory.ts';
import { buildTranscript } from '../transcript.ts';
import type { FromWorker, ToWorker, WorkerSetup } from './protocol.ts';

const port = parentPort!;
const setup = workerData as WorkerSetup;
const transport: ModelTransport = {
  ...DEFAULT_TRANSPORT,
  ...(setup.replayFile ? { replay: Cassette.load(setup.replayFile) } : {}),
};
useSharedRanks(setup.ranks);
const counter = new TokenCounter();
const abort = new AbortController();
// Each worker is its own heap: it keeps its old generation's garbage in check as the main thread
// does, with a quarter of the budget, so N workers stay within the RSS target (bench perf, target 7).
// Measured on the scale sweep (2 workers): 16 MB costs a dozen full GCs, ~0.3 s of CPU.
const memory = new MemoryGuard(16 * 1024 * 1024);
// Plans arrive as copies: key registries by scenario id, not object identity.
const registries = new Map<string, ToolRegistry>();
const tools = (s: Scenario) => {
  let r = registries.get(s.id);
  if (!r) registries.set(s.id, (r = ToolRegistry.fromDecls(s.tools)));
  return r;
};

// Runs here go one at a time, so one buffer serves them all, grown to the longest run's steps.
const steps = new LineBytes();

/** One run: its step lines, record and transcript posted back whole. */
async function run(m: Extract<ToWorker, { type: 'run' }>): Promise<void> {
  steps.clear();
  try {
    const result = await executeRun(m.plan, {
      counter,
      tools: (p) => tools(p.scenario),
      onStep: (r) => steps.append(stepLine(r)),
      signal: abort.signal,
      transcript: setup.transcripts,
      transport,
      control: setup.control,
    });
    const transcript = setup.transcripts ? buildTranscript(result.record, result.calls, result.messages) : undefined;
    // Copied, not transferred: a transfer detaches, which slows this thread's typed arrays for good (line-bytes.ts).
    port.postMessage({
      type: 'done',
      id: m.id,
      steps: steps.take(),
      record: result.record,
      ...(transcript ? { transcript } : {}),
    } satisfies FromWorker);
  } catch (e) {
    const error = e as Error;
    return port.postMessage({
      type: 'failed',
      id: m.id,
      message: error.message,
      stack: error.stack,
    } satisfies FromWorker);
  }
  memory.check();
}

// The pool sends a worker its next run before the current one ends, so it never waits on the main
// thread; the worker still runs them one after the other, as one thread does: started together,
// two runs would interleave at every model call, both growing histories alive at once.
let queue = Promise.resolve();
port.on('message', (m: ToWorker) => {
  if (m.type === 'abort') return abort.abort();
  queue = queue.then(() => run(m));
});
