// The two passes over an ATIF file: the header pass notes where each trajectory's steps are, and the
// steps pass parses them from there, naming a bad step by its trajectory and index in an array file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AtifFileError, readAtifHeaders, readAtifSteps } from '../src/trajectories/atif-stream.ts';
import { JsonStreamError } from '../src/trajectories/json-stream.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-atif-stream-'));
const trajectory = (id: string) => ({
  schema_version: 'ATIF-v1.4',
  session_id: id,
  agent: { name: 'a', version: '1', model_name: 'gpt-4o-mini' },
  steps: [
    { step_id: 1, source: 'user', message: 'hi' },
    { step_id: 2, source: 'agent', message: 'ok', metrics: { prompt_tokens: 5, completion_tokens: 2 } },
  ],
});

function read(name: string, text: string) {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, text);
  const items = readAtifHeaders(file);
  const seen: string[] = [];
  readAtifSteps(file, items, { step: (i, s) => seen.push(`${i}:${s.step_id}`), end: (i) => seen.push(`end ${i}`) });
  return { file, items, seen };
}

describe('readAtifHeaders and readAtifSteps', () => {
  it('hand over every step of every trajectory of an array, in order, each trajectory ended', () => {
    const { items, seen } = read('two.json', JSON.stringify([trajectory('x'), trajectory('y')], null, 1));
    expect(items.map((t) => [t.label.endsWith('two.json[1]'), t.steps.length])).toEqual([
      [false, 2],
      [true, 2],
    ]);
    expect(seen).toEqual(['0:1', '0:2', 'end 0', '1:1', '1:2', 'end 1']);
  });

  it("name a step that does not parse by its trajectory's place in the array, and one that is not ATIF by its label", () => {
    const text = JSON.stringify([trajectory('x'), trajectory('y')]);
    const broken = text.replace(/"completion_tokens":2\}\}\]\}\]$/, '"completion_tokens":2,}}]}]');
    expect(broken).not.toBe(text);
    expect(() => read('bad.json', broken)).toThrow(JsonStreamError);
    expect(() => read('bad.json', broken)).toThrow(/the value at \[1\]\.steps\[1\] does not parse/);
    const wrong = text.replace(/"step_id":2(?![\s\S]*"step_id":2)/, '"step_id":"two"');
    expect(() => read('wrong.json', wrong)).toThrow(AtifFileError);
    expect(() => read('wrong.json', wrong)).toThrow(/wrong\.json\[1\]: steps\[1\]\.step_id: Invalid input/);
  });
});
