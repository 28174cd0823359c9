// Ctrl-C during a sweep: the first SIGINT or SIGTERM stops new model calls and lets the sweep
// record what it has (unfinished runs as `interrupted`, reports written); a second one quits at once.
import { setMaxListeners } from 'node:events';

export interface InterruptTrap {
  signal: AbortSignal;
  /** The first signal received, if any. */
  received(): NodeJS.Signals | null;
  dispose(): void;
}

export const exitCodeFor = (sig: NodeJS.Signals | null) => (sig === 'SIGTERM' ? 143 : 130);

export function trapInterrupts(): InterruptTrap {
  const controller = new AbortController();
  // Every in-flight request and tool listens to this one signal; many at once is expected, not a leak.
  setMaxListeners(0, controller.signal);
  let first: NodeJS.Signals | null = null;
  const onSignal = (sig: NodeJS.Signals) => {
    if (first) {
      console.error(
        `\nbench: ${sig} again: quitting at once (records written so far are kept; bench --resume DIR finishes the rest)`,
      );
      process.exit(exitCodeFor(sig));
    }
    first = sig;
    console.error(
      `\nbench: ${sig}: no new model calls; recording unfinished runs as interrupted and writing the reports (press Ctrl-C again to quit at once)`,
    );
    controller.abort();
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];
  for (const s of signals) process.on(s, onSignal);
  return {
    signal: controller.signal,
    received: () => first,
    dispose: () => {
      for (const s of signals) process.off(s, onSignal);
    },
  };
}
