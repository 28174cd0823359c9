import { describe, expect, it } from 'vitest';
import { UsageError } from '../src/contracts/errors.ts';
import { parseNumberList } from '../src/runner/values.ts';

const steps = { flag: '--steps', integer: true, min: 1, off: true };

describe('sweep value lists', () => {
  it('parses lists, ranges and off', () => {
    expect(parseNumberList('12,30', steps)).toEqual([12, 30]);
    expect(parseNumberList('5..30:5', steps)).toEqual([5, 10, 15, 20, 25, 30]);
    expect(parseNumberList('3,off', steps)).toEqual([3, null]);
    expect(parseNumberList('0.1,0.5', { flag: '--max-cost', min: 0 })).toEqual([0.1, 0.5]);
  });

  it.each(['0', '-3', 'abc', '30..5', '1.5', '', 'off'])('rejects --steps %j with a message naming the flag', (bad) => {
    const rule = bad === 'off' ? { ...steps, off: false } : steps;
    expect(() => parseNumberList(bad, rule)).toThrow(UsageError);
    expect(() => parseNumberList(bad, rule)).toThrow(/--steps/);
  });
});
