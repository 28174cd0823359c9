// Cassettes: record a sweep against an OpenAI-compatible server, replay it offline with no key.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../src/contracts/errors.ts';
import { transportFrom } from '../src/runner/transport.ts';
import { Cassette } from '../src/models/cassette.ts';
import { RUN_DEFAULTS } from '../src/runner/run-defaults.ts';
import { sweepWith, type SweepResult } from '../src/serve/sweep-against.ts';
import { envFor, FAKE_KEY, serve } from './serve-helpers.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-cassette-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const file = path.join(tmp, 'c.json');
const flags = { scenario: 'seed-calibrated', model: 'openai:seed-calibrated', steps: '3,4', repeat: '2', seed: '9' };
let recorded: SweepResult;

beforeAll(async () => {
  const server = await serve();
  try {
    recorded = await sweepWith({ ...flags, record: file }, { env: envFor(server), dir: path.join(tmp, 'recorded') });
  } finally {
    await server.close();
  }
});

const view = (r: SweepResult) =>
  [...r.runs]
    .sort((a, b) => a.run_id.localeCompare(b.run_id))
    .map((x) => [x.run_id, x.stop_reason, x.steps, x.input_tokens, x.output_tokens, x.cost_usd, x.answer]);

describe('--record', () => {
  it('writes every answered call, keyed by a request hash, without secrets', () => {
    const text = fs.readFileSync(file, 'utf8');
    const json = JSON.parse(text);
    expect(json.loopbench_cassette).toBe(1);
    // Two repeats × (3 + 4 steps); the 3-step runs ask exactly what the first 3 steps of the 4-step ones ask.
    expect(json.entries).toHaveLength(8);
    expect(recorded.steps).toHaveLength(14);
    expect(json.entries[0]).toMatchObject({
      model: 'openai:seed-calibrated',
      scenario: 'seed-calibrated',
      step: 1,
      role: 'act',
    });
    expect(json.entries[0].response.usage.prompt_tokens).toBe(recorded.steps.find((s) => s.step === 1)!.input_tokens);
    expect(text).not.toContain(FAKE_KEY);
    expect(text).not.toMatch(/authorization|bearer/i);
  });
});

describe('--replay', () => {
  it('re-runs the recorded sweep offline, without a key, with the original usage and latency', async () => {
    const replayed = await sweepWith({ ...flags, replay: file }, { env: {} });
    expect(view(replayed)).toEqual(view(recorded));
    // Identical requests (the 3-step runs repeat the 4-step runs' first steps) share one recording.
    const cassette = JSON.parse(fs.readFileSync(file, 'utf8')).entries.map(
      (e: { response: { latency_ms: number } }) => e.response.latency_ms,
    );
    expect([...new Set(replayed.steps.map((s) => s.latency_ms))].sort()).toEqual([...new Set<number>(cassette)].sort());
    expect(replayed.steps.every((s) => s.error === null)).toBe(true);
  });

  it('is deterministic: two replays give the same records, elapsed time included', async () => {
    const a = await sweepWith({ ...flags, replay: file }, { env: {} });
    const b = await sweepWith({ ...flags, replay: file }, { env: {} });
    expect(a.runs.map((r) => [r.run_id, r.elapsed_ms]).sort()).toEqual(
      b.runs.map((r) => [r.run_id, r.elapsed_ms]).sort(),
    );
  });

  it('a request never recorded ends that run as error naming the scenario and step; the sweep goes on', async () => {
    const r = await sweepWith({ ...flags, steps: '3,6', replay: file }, { env: {} });
    expect(r.runs).toHaveLength(4);
    const longer = r.runs.filter((x) => x.settings.limits.max_steps === 6);
    for (const run of longer) {
      expect(run.stop_reason).toBe('error');
      expect(run.stop_detail).toMatch(/no recorded answer for scenario 'seed-calibrated' step 5/);
      expect(run.steps).toBe(5);
    }
    expect(r.runs.filter((x) => x.settings.limits.max_steps === 3).every((x) => x.stop_reason === 'max_steps')).toBe(
      true,
    );
  });

  it('replay:<file> as a model spec replays the one model recorded', async () => {
    const r = await sweepWith({ ...flags, model: `replay:${file}` }, { env: {} });
    expect(view(r).map((x) => x.slice(1))).toEqual(view(recorded).map((x) => x.slice(1)));
  });

  it('a cassette that is not one names the file and the field', () => {
    const bad = path.join(tmp, 'bad.json');
    fs.writeFileSync(bad, JSON.stringify({ loopbench_cassette: 1, entries: [{ key: 'xyz' }] }));
    expect(() => transportFrom({ ...RUN_DEFAULTS, replay: bad }, {})).toThrow(UsageError);
    expect(() => transportFrom({ ...RUN_DEFAULTS, replay: bad }, {})).toThrow(/bad\.json: entries\[0\]\.key/);
    expect(() => Cassette.load(path.join(tmp, 'missing.json'))).toThrow(
      /missing\.json: cannot read cassette \(ENOENT\)/,
    );
    fs.writeFileSync(bad, '{"loopbench_cassette": 1,');
    expect(() => Cassette.load(bad)).toThrow(/bad\.json: cannot read cassette/);
  });

  it('--record and --replay together are refused', () => {
    expect(() => transportFrom({ ...RUN_DEFAULTS, record: file, replay: file }, {})).toThrow(
      /--record and --replay do not go together/,
    );
  });
});
