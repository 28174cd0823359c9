// Keeping a long sweep's memory flat. A sweep's dead conversations outlive the young generation
// (a run spans many scavenges) and pile up in the old one, where V8 collects them only when the
// heap has grown to a multiple of what is live: on a 30,000-run sweep the process grew steadily
// to 300 MB though under 60 MB was live. So the sweep collects whenever the heap has grown
// GARBAGE_BUDGET past what the last collection left (a full GC of this heap is tens of ms, every
// few seconds at most), and once more before the reports, which then reuse that space.
import v8 from 'node:v8';
import vm from 'node:vm';

const GARBAGE_BUDGET = 64 * 1024 * 1024;

let collect: (() => void) | null | undefined;

/** Runs a full GC if this Node allows it (v8 flags can be set at run time); otherwise does nothing. */
export function releaseMemory(): void {
  if (collect === undefined) {
    try {
      // --expose-gc set now only exposes gc() to contexts created afterwards: one fresh context lends it.
      v8.setFlagsFromString('--expose-gc');
      collect = vm.runInNewContext('gc') as () => void;
    } catch {
      collect = null;
    }
  }
  collect?.();
}

const heapUsed = () => v8.getHeapStatistics().used_heap_size;

/** Collects when the heap has grown GARBAGE_BUDGET past its size after the last collection; cheap to call after every run. */
export class MemoryGuard {
  private floor = heapUsed();

  /** `budget`: bytes of garbage to let pile up (smaller in worker threads: there is a heap per thread). */
  constructor(private readonly budget = GARBAGE_BUDGET) {}

  check(): void {
    if (heapUsed() - this.floor < this.budget) return;
    releaseMemory();
    this.floor = heapUsed();
  }
}
