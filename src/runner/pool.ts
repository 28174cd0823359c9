/**
 * Runs `work` over `items` with at most `concurrency` at once. Workers pull the next item only when
 * they are free and keep nothing per item, so memory stays flat however many items there are
 * (unlike Promise.all over every item, which holds a promise and a result for each). `lane` says
 * which of the `concurrency` workers took the item (0 to concurrency - 1), for work that differs by lane.
 */
export async function forEachConcurrently<T>(
  items: Iterable<T>,
  concurrency: number,
  work: (item: T, lane: number) => Promise<void>,
): Promise<void> {
  const it = items[Symbol.iterator]();
  // After a failure no worker takes another item, and the pool settles only once every worker has
  // stopped: the caller may then close what the work writes to.
  let failed = false;
  const worker = async (lane: number) => {
    for (let next = it.next(); !next.done && !failed; next = it.next()) {
      try {
        await work(next.value, lane);
      } catch (e) {
        failed = true;
        throw e;
      }
    }
  };
  const settled = await Promise.allSettled(Array.from({ length: Math.max(1, concurrency) }, (_, lane) => worker(lane)));
  const rejected = settled.find((s) => s.status === 'rejected');
  if (rejected) throw rejected.reason;
}
