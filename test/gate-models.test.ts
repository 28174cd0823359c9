// `bench check` against a real HTTP endpoint (`bench serve`, through the openai SDK) and against a
// cassette recorded from it (`replay:`): the gate judges what the API billed, and a replay in CI
// reproduces it for free.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJsonl } from '../src/results/jsonl.ts';
import type { RunRecord } from '../src/contracts/records.ts';
import type { RunningServer } from '../src/serve/server.ts';
import { tempDir, writeBudgets } from './gate-helpers.ts';
import { benchAsync, envFor, serve } from './serve-helpers.ts';
import { patient } from './helpers/patient.ts';

const dir = tempDir('loopbench-gate-models-');
let server: RunningServer;
beforeAll(async () => {
  server = await serve();
});
afterAll(async () => {
  await server.close();
});

const budgets = (name: string, model: string) =>
  writeBudgets(
    dir,
    `model: ${model}
repeats: 2
limits: { steps: 12, max_cost: 0.05 }
scenarios:
  - scenario: autogpt-recursive-verification
    assertions:
      stop_reason: [spin]
      steps: { max: 8 }
      total_tokens: { mean: 20000 }
`,
    name,
  );

const runsOf = async (out: string) =>
  (await readJsonl<RunRecord>(path.join(out, 'runs.jsonl'))).records.sort((a, b) => a.run_id.localeCompare(b.run_id));

describe('bench check against real endpoints', () => {
  it(
    'checks an openai: model served by bench serve, records it, and the replay: check judges the same runs',
    async () => {
      const served = path.join(dir, 'served');
      const cassette = path.join(dir, 'cassette.json');
      const live = await benchAsync(
        [
          'check',
          budgets('served.yaml', 'openai:autogpt-recursive-verification'),
          '-q',
          '-o',
          served,
          '--record',
          cassette,
        ],
        envFor(server),
      );
      expect(live.stderr).toBe('');
      expect(live.code).toBe(0);
      expect(live.stdout).toContain('bench check: all 3 budgets hold');
      const liveRuns = await runsOf(served);
      expect(liveRuns.map((r) => [r.settings.model, r.stop_reason])).toEqual([
        ['openai:autogpt-recursive-verification', 'spin'],
        ['openai:autogpt-recursive-verification', 'spin'],
      ]);
      expect(fs.existsSync(cassette)).toBe(true);

      // Offline, no key, the cassette named relative to the budgets file.
      const replayed = path.join(dir, 'replayed');
      const replay = await benchAsync(
        ['check', budgets('replayed.yaml', 'replay:cassette.json'), '-q', '-o', replayed],
        {},
      );
      expect(replay.stderr).toBe('');
      expect(replay.code).toBe(0);
      expect(replay.stdout).toContain('bench check: all 3 budgets hold');
      const replayRuns = await runsOf(replayed);
      const totals = (rs: RunRecord[]) => rs.map((r) => [r.stop_reason, r.steps, r.input_tokens, r.output_tokens]);
      expect(totals(replayRuns)).toEqual(totals(liveRuns));
    },
    patient(180_000),
  );
});
