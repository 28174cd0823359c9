// Keeping a long sweep's memory flat. A sweep's dead conversations outlive the young generation
// (a run spans many scavenges) and pile up in the old one, where V8 collects them only when the
// heap has grown to a multiple of what is live: on a 30,000-run sweep the process grew steadily
// to 300 MB though under 60 MB was live. So the sweep collects whenever the old generation has
// grown GARBAGE_BUDGET past what the last collection left (a full GC of this heap is tens of ms,
// every few seconds at most), and once more before the reports, which then reuse that space.
// Only the old generation counts: the young one empties itself at every scavenge, and counting it
// made a small budget (worker threads) trigger a full GC after nearly every run.
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

const YOUNG_SPACES = new Set(['new_space', 'new_large_object_space']);

/** Bytes used by the old generation (every heap space but the young ones), a few µs to ask. */
export function oldGenerationUsed(): number {
  let used = 0;
  for (const s of v8.getHeapSpaceStatistics()) if (!YOUNG_SPACES.has(s.space_name)) used += s.space_used_size;
  return used;
}

/** Collects when the old generation has grown GARBAGE_BUDGET past its size after the last collection; cheap to call after every run. */
export class MemoryGuard {
  private floor = oldGenerationUsed();

  /** `budget`: bytes of garbage to let pile up (smaller in worker threads: there is a heap per thread). */
  constructor(
    private readonly budget = GARBAGE_BUDGET,
    private readonly collect = releaseMemory,
  ) {}

  check(): void {
    if (oldGenerationUsed() - this.floor < this.budget) return;
    this.collect();
    this.floor = oldGenerationUsed();
  }
}
