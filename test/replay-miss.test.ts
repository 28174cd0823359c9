// A stale cassette is not a breach: `bench check --replay` on a budgets file whose prompt or settings
// changed since recording says what was not measured and why, exits 3 (not 1), and says how to re-record.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../src/serve/server.ts';
import { tempDir, writeBudgets } from './gate-helpers.ts';
import { benchAsync, envFor, serve } from './serve-helpers.ts';

const dir = tempDir('loopbench-replay-miss-');
const cassette = path.join(dir, 'cassette.json');
let server: RunningServer;
let recorded: Awaited<ReturnType<typeof benchAsync>>;

const budgets = (name: string, o: { system: string; maxOutput?: number; extra?: string }) =>
  writeBudgets(
    dir,
    `model: openai:autogpt-recursive-verification
repeats: 2
${o.maxOutput ? `max_output_tokens: ${o.maxOutput}\n` : ''}limits: { steps: 12, max_cost: 0.05 }
scenarios:
  - scenario: autogpt-recursive-verification
    system: "${o.system}"
    assertions:
      stop_reason: [spin]
      steps: { max: 8 }
${o.extra ?? ''}`,
    name,
  );

beforeAll(async () => {
  server = await serve();
  recorded = await benchAsync(
    [
      'check',
      budgets('a.yaml', { system: 'You are a research agent. Prompt A.' }),
      '-q',
      '-o',
      path.join(dir, 'recorded'),
      '--record',
      cassette,
    ],
    envFor(server),
  );
}, 120_000);
afterAll(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('bench check --replay against a stale cassette', () => {
  it('the recording holds every budget, and replaying the same budgets file holds them too', async () => {
    expect(recorded.code, recorded.stderr).toBe(0);
    const same = await benchAsync(
      ['check', path.join(dir, 'a.yaml'), '--replay', cassette, '-q', '-o', path.join(dir, 'same')],
      {},
    );
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toContain('bench check: all 2 budgets hold');
  });

  it('a changed system prompt is a replay miss: its own verdict, what differs, how to re-record, exit 3', async () => {
    const b = budgets('b.yaml', { system: 'You are a research agent. Prompt B, changed by the pull request.' });
    const out = path.join(dir, 'changed');
    const r = await benchAsync(['check', b, '--replay', cassette, '-q', '-o', out], {});
    expect(r.code).toBe(3);
    // Not a breach: no FAIL line, no "the new prompt does not stop".
    expect(r.stdout).not.toMatch(/^FAIL/m);
    expect(r.stdout).toMatch(
      /^MISS {2}autogpt-recursive-verification {2}replay: requests recorded {2}2 of 2 run\(s\) asked for requests not in the cassette {2}\(limit every request recorded\)$/m,
    );
    expect(r.stdout).toContain('bench check: 1 scenario(s) not measured (replay miss); no budget judged');
    expect(r.stderr).toContain(
      `bench check: ${cassette} holds no recorded answer for 1 scenario(s) (autogpt-recursive-verification): nothing was measured for them, which is not a breach (exit 3).`,
    );
    expect(r.stderr).toContain(
      'The cassette is stale: the nearest recorded request (step 1) differs in the system prompt.',
    );
    expect(r.stderr).toContain(
      `Re-record it against the real model (costs money once; needs OPENAI_API_KEY): run bench check ${b} --record ${cassette} --ci-max-spend <USD>, and commit the cassette;`,
    );
    const junit = fs.readFileSync(path.join(out, 'junit.xml'), 'utf8');
    expect(junit).toContain('failures="0" errors="1"');
    expect(junit).toMatch(
      /<error type="replay-miss" message="autogpt-recursive-verification: not measured — 2 of 2 run\(s\) asked for requests not in the cassette .* \(first at step 1: the nearest recorded request \(step 1\) differs in the system prompt\); re-record it against the real model"/,
    );
    expect(fs.readFileSync(path.join(out, 'summary.md'), 'utf8')).toMatch(
      /^## ⚠️ bench check: 1 scenario\(s\) not measured \(replay miss\)/,
    );
  });

  it('a changed parameter is named with both values', async () => {
    const c = budgets('c.yaml', { system: 'You are a research agent. Prompt A.', maxOutput: 512 });
    const r = await benchAsync(['check', c, '--replay', cassette, '-q', '-o', path.join(dir, 'param')], {});
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('the nearest recorded request (step 1) differs in max_tokens (1024 recorded, 512 now)');
  });

  it('a real breach still exits 1 when another scenario missed', async () => {
    const d = budgets('d.yaml', {
      system: 'You are a research agent. Prompt A.',
      extra: `  - scenario: autogpt-recursive-verification
    id: changed-prompt
    system: "Prompt C."
    assertions:
      stop_reason: [spin]
`,
    });
    // The recorded scenario now breaches a tighter budget; the renamed one was never recorded.
    fs.writeFileSync(d, fs.readFileSync(d, 'utf8').replace('steps: { max: 8 }', 'steps: { max: 3 }'));
    const r = await benchAsync(['check', d, '--replay', cassette, '-q', '-o', path.join(dir, 'both')], {});
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL {2}autogpt-recursive-verification +steps max ≤ 3/m);
    expect(r.stdout).toMatch(/^MISS {2}changed-prompt /m);
    expect(r.stderr).toContain(
      "it holds no request for scenario 'changed-prompt' (it holds: autogpt-recursive-verification)",
    );
  });
});
