// A transcript holds everything a call was billed for: recounting each call from the transcript
// alone (its messages and the tool definitions it sent) gives the step record's input tokens.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AssistantMessage } from '../src/contracts/chat.ts';
import type { StepRecord } from '../src/contracts/records.ts';
import { completionTokens, TokenCounter } from '../src/meter/tokens.ts';
import type { Transcript } from '../src/runner/transcript.ts';
import { benchInProcess } from './helpers/cli.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-recount-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('recounting a call from its transcript', () => {
  it('equals the step record, tools included (an enum-carrying tool among them)', async () => {
    const out = path.join(tmp, 'sweep');
    const r = await benchInProcess([
      '-s',
      'seed-calibrated,downloads-reorg',
      '--steps',
      '6',
      '--repeat',
      '2',
      '-q',
      '-o',
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const steps = fs
      .readFileSync(path.join(out, 'steps.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as StepRecord);
    const files = fs.readdirSync(path.join(out, 'transcripts'));
    expect(files).toHaveLength(4);
    let recounted = 0;
    for (const f of files) {
      const t = JSON.parse(fs.readFileSync(path.join(out, 'transcripts', f), 'utf8')) as Transcript;
      expect(t.tools.length).toBe(1);
      for (const c of t.calls) {
        const step = steps.find((s) => s.run_id === t.run_id && s.call === c.call)!;
        const counter = new TokenCounter();
        expect(c.tools).not.toBeNull();
        const sent = c.sent.map((i) => t.messages[i]!);
        expect(counter.prompt(sent, t.tools[c.tools!])).toBe(step.input_tokens);
        expect(counter.prompt(sent)).toBeLessThan(step.input_tokens);
        expect(completionTokens(t.messages[c.received!] as AssistantMessage)).toBe(step.output_tokens);
        recounted++;
      }
    }
    expect(recounted).toBe(steps.length);
  });
});
