// `npm test` must pass on a fresh machine without bubblewrap, Chromium or the coding-agent CLIs of
// test-clients/: every test that calls one asks test/helpers/system-tools.ts first (which skips it
// with a line saying how to install the tool). This fails on a test file that calls a system tool without asking.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const TEST_DIR = import.meta.dirname;

/** How a test file reaches each tool: spawning it, or launching the browser. */
const USES = {
  bubblewrap:
    /\b(execFileSync|execFile|spawnSync|spawn|execSync|exec)\(\s*['"`]bwrap['"`]|\binBwrap\(|containment:\s*['"`]bwrap['"`]/,
  chromium: /\/usr\/bin\/chromium|\bchromium\.launch\w*\(/,
  'claude-code': /\brunClaude\(|\bCLAUDE_BIN\b/,
  codex: /\brunCodex\(|\bCODEX_BIN\b/,
} as const;

function testFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'fixtures' ? [] : testFiles(p);
    return /\.ts$/.test(e.name) ? [p] : [];
  });
}

/** The tools a file uses without a systemTool('<tool>', …) guard in the same file. */
export function unguarded(text: string): string[] {
  return Object.entries(USES)
    .filter(([tool, use]) => use.test(text) && !new RegExp(`systemTool\\(\\s*['"\`]${tool}['"\`]`).test(text))
    .map(([tool]) => tool);
}

describe('system tools in tests', () => {
  it('every test file that calls bubblewrap, Chromium, Claude Code or Codex guards it with systemTool()', () => {
    const offenders = testFiles(TEST_DIR)
      .filter((f) => !/[/\\](system-tools|coding-clients)\.ts$/.test(f) && f !== import.meta.filename)
      .flatMap((f) => unguarded(fs.readFileSync(f, 'utf8')).map((tool) => `${path.relative(TEST_DIR, f)}: ${tool}`));
    expect(offenders).toEqual([]);
  });

  it('the rule catches an unguarded call, and accepts a guarded one', () => {
    expect(unguarded("execFileSync('bwrap', ['--ro-bind', a, a])")).toEqual(['bubblewrap']);
    expect(unguarded("await chromium.launchPersistentContext(dir, { executablePath: '/usr/bin/chromium' })")).toEqual([
      'chromium',
    ]);
    expect(unguarded("it.skipIf(!systemTool('bubblewrap', 'x'))('y', () => execFileSync('bwrap', []))")).toEqual([]);
    expect(unguarded("runPython(code, { containment: 'bwrap' })")).toEqual(['bubblewrap']);
    expect(unguarded("const r = await runClaude(up.url, 'task')")).toEqual(['claude-code']);
    expect(unguarded("it.skipIf(!systemTool('codex', 'x'))('y', () => runCodex(url, 'task'))")).toEqual([]);
  });
});
