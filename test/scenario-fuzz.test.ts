// Property-based: random and mutated scenario documents through the real loader. The only
// outcomes allowed are a valid Scenario or a UsageError naming the file (one line); never a
// TypeError, a ReferenceError from the YAML library, or a half-checked object.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../src/contracts/errors.ts';
import { listScenarioFiles, loadScenarioFile } from '../src/scenario/loader.ts';
import { ScenarioSchema } from '../src/scenario/schema.ts';

let tmp: string;
beforeAll(() => void (tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-fuzz-'))));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const shipped = listScenarioFiles().map((f) => ({ id: path.basename(f, '.yaml'), text: fs.readFileSync(f, 'utf8') }));

/** Loads `text` as the scenario file `<id>.yaml`; returns what happened. */
function load(id: string, text: string): { ok: true } | { ok: false; error: unknown } {
  const file = path.join(tmp, `${id}.yaml`);
  fs.writeFileSync(file, text);
  try {
    const s = loadScenarioFile(file);
    // A loaded scenario is a fully valid one: re-checking it finds nothing.
    const { file: _f, ...doc } = s;
    expect(ScenarioSchema.safeParse(doc).success).toBe(true);
    expect(s.goal.trim()).not.toBe('');
    return { ok: true };
  } catch (error) {
    return { ok: false, error };
  }
}

function expectTypedError(r: ReturnType<typeof load>, id: string): void {
  if (r.ok) return;
  expect(r.error).toBeInstanceOf(UsageError);
  const message = (r.error as UsageError).message;
  expect(message.startsWith(`${path.join(tmp, `${id}.yaml`)}: `)).toBe(true);
  expect(message).not.toContain('\n');
}

/** A mutation of a parsed document: drop, replace or add a field at any depth. */
type Mutation = { kind: 'drop' | 'set' | 'add'; pick: number; key: string; value: unknown };
const mutation: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom('drop', 'set', 'add'),
  pick: fc.nat(),
  key: fc.oneof(
    fc.string({ maxLength: 12 }),
    fc.constantFrom(
      'id',
      'goal',
      'tools',
      'kind',
      'name',
      'timeout_s',
      'max_output_chars',
      'max_memory_mb',
      'check',
      'expected',
      'pattern',
      'result_tokens',
      'profile',
    ),
  ),
  value: fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.constantFrom(
      -1,
      0,
      1e12,
      -1e-9,
      Number.MAX_SAFE_INTEGER,
      '',
      '   ',
      'run_python',
      'python',
      'scripted',
      null,
      [],
      {},
    ),
  ),
});

/** Every object/array node of a document, so a mutation can land anywhere. */
function nodes(v: unknown, out: Array<Record<string, unknown> | unknown[]> = []) {
  if (v && typeof v === 'object') {
    out.push(v as Record<string, unknown>);
    for (const c of Object.values(v)) nodes(c, out);
  }
  return out;
}

function mutate(doc: unknown, muts: Mutation[]): unknown {
  for (const original of muts) {
    // A fresh copy each time: the same value placed twice would make the document cyclic.
    const m = { ...original, value: structuredClone(original.value) };
    const all = nodes(doc);
    if (all.length === 0) return m.value;
    const node = all[m.pick % all.length]!;
    const keys = Object.keys(node);
    const key = m.kind === 'add' || keys.length === 0 ? m.key : keys[m.pick % keys.length]!;
    if (Array.isArray(node)) {
      const i = Number.isInteger(Number(key)) ? Number(key) % (node.length + 1) : node.length;
      if (m.kind === 'drop') node.splice(i, 1);
      else node[i] = m.value;
    } else if (m.kind === 'drop') delete node[key];
    else node[key] = m.value;
  }
  return doc;
}

describe('scenario loader under random input (fast-check)', () => {
  it('mutated shipped scenarios load as a valid Scenario or fail with a UsageError naming the file', () => {
    fc.assert(
      fc.property(fc.constantFrom(...shipped), fc.array(mutation, { minLength: 1, maxLength: 4 }), (s, muts) => {
        const doc = mutate(parse(s.text), muts);
        expectTypedError(load(s.id, stringify(doc)), s.id);
      }),
      { numRuns: 300 },
    );
  });

  it('random documents of any shape do the same', () => {
    fc.assert(
      fc.property(fc.anything({ maxDepth: 3, withNullPrototype: true, withBigInt: false }), (doc) => {
        let text: string | undefined;
        try {
          text = stringify(doc);
        } catch {
          text = undefined;
        }
        if (typeof text !== 'string') return; // not representable as YAML: nothing to load
        expectTypedError(load('random', text), 'random');
      }),
      { numRuns: 200 },
    );
  });

  it('byte-level damage to the YAML text (cuts, inserted characters, anchors and aliases) does the same', () => {
    const noise = fc.oneof(
      fc.string({ maxLength: 6 }),
      fc.constantFrom(
        ':',
        '- ',
        '\t',
        '"',
        "'",
        '&a ',
        '*a',
        '*b',
        '{',
        '[',
        '!!binary ',
        '? ',
        '\n  ',
        '#',
        '%',
        '---\n',
        '\0',
      ),
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...shipped),
        fc.array(fc.tuple(fc.nat(), fc.nat({ max: 8 }), noise), { minLength: 1, maxLength: 5 }),
        (s, edits) => {
          let text = s.text;
          for (const [at, cut, insert] of edits) {
            const i = at % (text.length + 1);
            text = text.slice(0, i) + insert + text.slice(i + cut);
          }
          expectTypedError(load(s.id, text), s.id);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('anchors and aliases (unresolved ones, alias bombs) do the same', () => {
    // Each line anchors a list of aliases to earlier (or missing) anchors: nine per level grows fast.
    const line = fc.tuple(fc.nat({ max: 4 }), fc.array(fc.nat({ max: 5 }), { minLength: 1, maxLength: 9 }));
    fc.assert(
      fc.property(fc.constantFrom(...shipped), fc.array(line, { minLength: 1, maxLength: 12 }), (s, lines) => {
        const extra = lines.map(([a, refs], i) => `x${i}: &a${a} [${refs.map((r) => `*a${r}`).join(', ')}]`).join('\n');
        expectTypedError(load(s.id, `${s.text}${extra}\n`), s.id);
      }),
      { numRuns: 200 },
    );
  });

  it('the unmutated shipped scenarios all load', () => {
    for (const s of shipped) expect(load(s.id, s.text)).toEqual({ ok: true });
  });
});
