import type CliProgress from 'cli-progress';
import { lazyPackage } from '../contracts/lazy-package.ts';

// cli-progress is loaded only when a bar is drawn (a terminal), not when `bench` starts.
const cliProgressPackage = lazyPackage<typeof CliProgress>('cli-progress');

export interface Progress {
  tick(label: string): void;
  stop(): void;
}

/** A progress bar on stderr when it is a terminal; silent otherwise (CI logs stay clean). */
export function createProgress(total: number, enabled: boolean): Progress {
  if (!enabled || !process.stderr.isTTY) return { tick() {}, stop() {} };
  const cliProgress = cliProgressPackage();
  const bar = new cliProgress.SingleBar(
    {
      format: 'runs {bar} {value}/{total} | {eta_formatted} left | {label}',
      stream: process.stderr,
      hideCursor: true,
      clearOnComplete: true,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { label: '' });
  return {
    tick: (label) => bar.increment(1, { label }),
    stop: () => bar.stop(),
  };
}
