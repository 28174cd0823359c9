/**
 * Runs `work` over `items` with at most `concurrency` at once. Workers pull the next item only when
 * they are free and keep nothing per item, so memory stays flat however many items there are
 * (unlike Promise.all over every item, which holds a promise and a result for each).
 */
export async function forEachConcurrently<T>(items: Iterable<T>, concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  const it = items[Symbol.iterator]();
  const worker = async () => {
    for (let next = it.next(); !next.done; next = it.next()) await work(next.value);
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
}
