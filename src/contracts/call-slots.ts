/** What a model caller needs of the sweep's shared call slots (`--concurrency`): hold one around each
 * call. The pool itself (first come, first served) lives in the runner. */
export interface CallSlotPool {
  /** Resolves true once a slot is held (release it after the call), or false if `signal` aborted first. */
  acquire(signal?: AbortSignal): Promise<boolean>;
  release(): void;
}
