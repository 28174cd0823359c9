// Target 2: linear, not quadratic. Each step of seed-calibrated adds about the same new text, so a
// harness whose per-step work does not re-read the history spends the same time per step at 100
// steps as at 10. Both sweeps run the same number of steps (10 × R runs vs 100 × R/10 runs).
import { timeSweep, type SweepFlags, type SweepTiming } from './sweep.ts';

export interface LinearityResult {
  short: SweepTiming;
  long: SweepTiming;
  /** CPU ms per step. */
  perStepShort: number;
  perStepLong: number;
  /** perStepLong ÷ perStepShort. */
  ratio: number;
}

/** Brakes other than max_steps are off, so every run reaches its step limit. */
const args = (steps: number, repeat: number): SweepFlags => ({
  scenario: 'seed-calibrated',
  steps: String(steps),
  repeat: String(repeat),
  timeout: 'off',
  maxCost: 'off',
});

export async function measureLinearity(longRepeat: number): Promise<LinearityResult> {
  await timeSweep(args(10, longRepeat)); // warm-up: JIT and tokenizer caches
  const short = await timeSweep(args(10, longRepeat * 10));
  const long = await timeSweep(args(100, longRepeat));
  const perStepShort = short.cpuMs / short.steps;
  const perStepLong = long.cpuMs / long.steps;
  return { short, long, perStepShort, perStepLong, ratio: perStepLong / perStepShort };
}
