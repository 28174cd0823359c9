import { createRequire } from 'node:module';
import type CliProgress from 'cli-progress';

// cli-progress is loaded only when a bar is drawn (a terminal), not when `bench` starts.
const require = createRequire(import.meta.url);

export interface Progress {
  tick(label: string): void;
  stop(): void;
}

/** A progress bar on stderr when it is a terminal; silent otherwise (CI logs stay clean). */
export function createProgress(total: number, enabled: boolean): Progress {
  if (!enabled || !process.stderr.isTTY) return { tick() {}, stop() {} };
  const cliProgress = require('cli-progress') as typeof CliProgress;
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
