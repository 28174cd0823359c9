// Tools of the machine, not of the root package, that some tests need (the coding-agent CLIs are npm
// packages, but ~660 MB: they live in test-clients/, installed by .ci/run, not by the quick start). Each test asks here; where a tool is absent
// (a fresh machine) its tests are skipped with one line naming the tool and how to install it, so
// `npm test` passes anyway. .ci/run installs every one of them, so CI skips nothing.
// test/system-tool-guards.test.ts fails on a test file that calls one of them without asking here.
import fs from 'node:fs';
import { detectContainment } from '../../src/tools/containment.ts';
import { CLAUDE_BIN, CODEX_BIN } from './coding-clients.ts';

export const CHROMIUM = '/usr/bin/chromium';

const TOOLS = {
  /** bubblewrap, and namespaces it may create here (a container may forbid them). */
  bubblewrap: {
    present: () => detectContainment() === 'bwrap',
    absent: 'is not installed here, or cannot create its namespaces',
    install: 'apt-get install -y bubblewrap',
  },
  chromium: {
    present: () => fs.existsSync(CHROMIUM),
    absent: `is not at ${CHROMIUM}`,
    install: 'apt-get install -y chromium',
  },
  'claude-code': {
    present: () => fs.existsSync(CLAUDE_BIN),
    absent: `is not at ${CLAUDE_BIN}`,
    install: 'npm ci --prefix test-clients',
  },
  codex: {
    present: () => fs.existsSync(CODEX_BIN),
    absent: `is not at ${CODEX_BIN}`,
    install: 'npm ci --prefix test-clients',
  },
} as const;

export type SystemTool = keyof typeof TOOLS;

const said = new Set<string>();

/** Whether `tool` is usable here; when not, says once that `what` is skipped and how to install it. */
export function systemTool(tool: SystemTool, what: string): boolean {
  const t = TOOLS[tool];
  if (t.present()) return true;
  const line = `skipped: ${what} — ${tool} ${t.absent} (${t.install}; .ci/run installs it)`;
  if (!said.has(line)) console.warn(line);
  said.add(line);
  return false;
}
