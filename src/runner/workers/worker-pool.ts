// A pool of sweep worker threads: simulated and replayed runs are CPU work (tokenizing, mostly), so
// N threads run N at once: the main thread and N - 1 workers. Each run sent here goes to the least
// busy worker; its step lines, record and transcript come back whole, for the main thread to write.
// Reports aggregate in plan order, so they are the same whichever thread finished which run first.
import type { Worker } from 'node:worker_threads';
import { sharedRanks } from '../../meter/tokens.ts';
import type { RunPlan } from '../sweep.ts';
import type { FromWorker, ToWorker, WorkerSetup } from './protocol.ts';
import { spawnEntry } from './spawn.ts';

type Done = Extract<FromWorker, { type: 'done' }>;

/**
 * Each thread has its own young generation. 32 MB lets most of a run's garbage die young: at 8 MB
 * the scale sweep's 2 workers scavenged 3.5x as often and promoted enough to spend ~20 % more CPU
 * than one thread for the same runs; the default (up to ~48 MB) times N threads would take the RSS target.
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 32 };

/** The worker script: the bundle's dist/sweep-worker.js, or worker-entry.ts under tsx or vitest. */
const spawnWorker = (setup: WorkerSetup): Worker =>
  spawnEntry('sweep-worker.js', new URL('./worker-entry.ts', import.meta.url), {
    workerData: setup,
    resourceLimits: WORKER_LIMITS,
  });

interface Slot {
  worker: Worker;
  busy: number;
}

export class WorkerPool {
  private readonly slots: Slot[];
  private readonly pending = new Map<number, { resolve: (d: Done) => void; reject: (e: Error) => void }>();
  private nextId = 0;
  private failure: Error | undefined;

  constructor(
    readonly size: number,
    setup: WorkerSetup,
  ) {
    this.slots = Array.from({ length: size }, () => {
      const slot = { worker: spawnWorker(setup), busy: 0 };
      slot.worker.on('message', (m: FromWorker) => {
        slot.busy--;
        const p = this.pending.get(m.id)!;
        this.pending.delete(m.id);
        if (m.type === 'done') p.resolve(m);
        else p.reject(Object.assign(new Error(m.message), { stack: m.stack }));
      });
      // A worker that dies (it cannot load, runs out of memory) fails the sweep, as a crash in process would.
      slot.worker.on('error', (e) => this.fail(e));
      slot.worker.on('exit', (code) => code !== 0 && this.fail(new Error(`sweep worker exited with code ${code}`)));
      return slot;
    });
  }

  private fail(e: Error): void {
    this.failure ??= e;
    for (const p of this.pending.values()) p.reject(this.failure);
    this.pending.clear();
  }

  /** Runs one plan on the least busy worker. */
  run(plan: RunPlan): Promise<Done> {
    if (this.failure) return Promise.reject(this.failure);
    const slot = this.slots.reduce((a, b) => (b.busy < a.busy ? b : a));
    const id = this.nextId++;
    slot.busy++;
    return new Promise<Done>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      slot.worker.postMessage({ type: 'run', id, plan } satisfies ToWorker);
    });
  }

  /** Ctrl-C: every worker stops starting model calls; its runs end as `interrupted`. */
  abort(): void {
    for (const s of this.slots) s.worker.postMessage({ type: 'abort' } satisfies ToWorker);
  }

  async close(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }
}

/**
 * The workers beside this thread for a sweep on `workers` threads (this one runs runs too), or none:
 * only for simulated and replayed runs, which are CPU work; not for runs that call a provider (I/O,
 * governed by --concurrency), record a cassette, or trace to this thread's stderr; not for one
 * thread, nor more workers than there are runs beyond this thread's first.
 */
export function poolFor(
  o: { workers?: number; plans: readonly RunPlan[]; networked: boolean; traced: boolean; recording: boolean } & Omit<
    WorkerSetup,
    'ranks'
  >,
): WorkerPool | undefined {
  const size = Math.min((o.workers ?? 1) - 1, o.plans.length - 1);
  if (size < 1 || o.networked || o.traced || o.recording) return undefined;
  return new WorkerPool(size, {
    ranks: sharedRanks(),
    transcripts: o.transcripts,
    ...(o.replayFile ? { replayFile: o.replayFile } : {}),
    ...(o.control ? { control: o.control } : {}),
  });
}
