import { describe, expect, it } from 'vitest';
import { constraintRows, longestRoundLimit, roleRows, roundRows } from '../src/report/stats/taskqueue.ts';
import { queueLengthChart } from '../src/report/charts/taskqueue.ts';
import { configColours } from '../src/report/charts/colours.ts';
import type { RunRecord } from '../src/contracts/records.ts';
import type { Settings } from '../src/contracts/settings.ts';

const settings = (agent: Settings['agent']) =>
  ({ scenario: 's', model: 'sim', limits: {}, agent, seed: 1, repeat: 0 }) as unknown as Settings;
function run(
  config: string,
  agent: Settings['agent'],
  queues: number[],
  cost: number,
  roles: Record<string, [number, number, number]>,
): RunRecord {
  return {
    run_id: `${config}-${cost}`,
    config_id: config,
    scenario: 's',
    agent: 'taskqueue',
    settings: settings(agent),
    calls: queues.length * 3,
    input_tokens: 1000 * cost,
    output_tokens: 0,
    cost_usd: cost,
    extra: {
      initial_queue_length: 1,
      final_queue_length: queues.at(-1),
      rounds: queues.map((q, i) => ({ round: i + 1, queue_length: q, calls: 3, input_tokens: 100, output_tokens: 10 })),
      tokens_by_role: Object.fromEntries(
        Object.entries(roles).map(([k, [c, i, o]]) => [k, { calls: c, input_tokens: i, output_tokens: o }]),
      ),
    },
  } as unknown as RunRecord;
}

const off = { queue_cap: null, dedup: null, anchor: false, compress_at: 64000 };
const runs = [
  run('cap=off', off, [2, 4, 6], 4, { execute: [3, 300, 30], create: [3, 600, 60] }),
  run('cap=off', off, [2, 4], 2, { execute: [2, 200, 20] }),
  run('cap=3', { ...off, queue_cap: 3 }, [2, 3, 3], 3, { execute: [3, 300, 30] }),
  { ...run('react', off, [], 1, {}), agent: 'react', extra: undefined } as RunRecord,
];

describe('task-queue report aggregation', () => {
  it('queue length and calls per round, over the runs that reached the round; round 0 is the initial queue', () => {
    const rows = roundRows(runs).filter((r) => r.config_id === 'cap=off');
    expect(rows.map((r) => [r.round, r.runs, r.queue_length_mean, r.queue_length_max])).toEqual([
      [0, 2, 1, 1],
      [1, 2, 2, 2],
      [2, 2, 4, 4],
      [3, 1, 6, 6],
    ]);
    expect(rows[1]!.calls_mean).toBe(3);
    expect(rows[1]!.tokens_mean).toBe(110);
    expect(roundRows(runs).some((r) => r.config_id === 'react')).toBe(false);
  });

  it('tokens per role, a role a run never called counting as zero', () => {
    const create = roleRows(runs).find((r) => r.config_id === 'cap=off' && r.role === 'create')!;
    expect(create).toEqual({
      config_id: 'cap=off',
      role: 'create',
      calls_mean: 1.5,
      input_tokens_mean: 300,
      output_tokens_mean: 30,
    });
  });

  it('each constraint against the same configuration with it off', () => {
    const [row, ...rest] = constraintRows(runs);
    expect(rest).toEqual([]);
    expect(row).toMatchObject({
      constraint: 'queue_cap',
      value: '3',
      baseline: 'cap=off',
      config_id: 'cap=3',
      cost_usd_off: 3,
      cost_usd_on: 3,
      final_queue_off: 5,
      final_queue_on: 3,
      cost_change_pct: 0,
    });
  });

  it('keeps, of configurations differing only in the round limit, the longest (off counts as unlimited)', () => {
    const withLimit = (r: RunRecord, max_rounds: number | null, config: string) =>
      ({ ...r, config_id: config, settings: { ...r.settings, limits: { max_rounds } } }) as RunRecord;
    const a = withLimit(runs[0]!, 3, 'r3');
    const b = withLimit(runs[0]!, 10, 'r10');
    const c = withLimit(runs[2]!, 3, 'cap r3');
    expect(longestRoundLimit([a, b, c]).map((r) => r.config_id)).toEqual(['r10', 'cap r3']);
    expect(longestRoundLimit([a, withLimit(runs[0]!, null, 'off')]).map((r) => r.config_id)).toEqual(['off']);
  });

  it('charts the queue length per round, one line per configuration', () => {
    const chart = queueLengthChart(roundRows(runs), configColours(runs));
    expect(chart.name).toBe('taskqueue-queue-length');
    const values = (chart.spec as { data: { values: Array<{ config: string; round: number; queue: number }> } }).data
      .values;
    expect(values.filter((v) => v.config === 'cap=3').map((v) => v.queue)).toEqual([1, 2, 3, 3]);
    // The report's one colour scale, the legend naming only the lines drawn.
    const color = (chart.spec as { encoding: { color: { scale: unknown; legend: { values: string[] } } } }).encoding
      .color;
    const colours = configColours(runs);
    expect(color.scale).toEqual({ domain: colours.domain, range: colours.range });
    expect(color.legend.values).toEqual(colours.domain.filter((d) => values.some((v) => v.config === d)));
  });
});
