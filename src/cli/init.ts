// `bench init`: scaffolds loopbench into the user's own repository — a starter budgets file for
// their prompt, a GitHub Actions workflow that installs loopbench-cli (not this repository), and a
// minimal agent wrapper for --agent-cmd. It never overwrites a file: one that exists is kept and said so.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { dataPath, ownVersion } from '../contracts/paths.ts';
import { UsageError } from '../contracts/errors.ts';
import { createFileAtomic } from '../results/atomic.ts';

export const PACKAGE_NAME = 'loopbench-cli';

/** What init writes: the template under data/init/ and where it goes, relative to the target directory. */
const FILES = [
  { template: 'budgets.yaml', to: 'loopbench/budgets.yaml' },
  { template: 'prompt.md', to: 'loopbench/prompt.md' },
  { template: 'agent.mjs', to: 'loopbench/agent.mjs' },
  { template: 'workflow.yml', to: '.github/workflows/loopbench.yml' },
] as const;

/** Whether the project's package.json lists loopbench-cli, so CI's `npm ci` installs it. */
function projectDeclaresUs(dir: string): boolean {
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as Record<
      string,
      Record<string, string> | undefined
    >;
    return ['dependencies', 'devDependencies', 'optionalDependencies'].some(
      (k) => pkg[k]?.[PACKAGE_NAME] !== undefined,
    );
  } catch {
    return false;
  }
}

/** The workflow's install step: the project's own lockfile when it lists us, else this exact version on its own. */
function installStep(declared: boolean, version: string): string {
  if (declared)
    return [
      '          cache: npm',
      '      - run: npm ci             # installs loopbench-cli from your package.json',
    ].join('\n');
  return `      - run: npm install --no-save --no-audit --no-fund ${PACKAGE_NAME}@${version}`;
}

export interface Scaffolded {
  written: string[];
  kept: string[];
  declared: boolean;
}

/** Writes the starter files into `dir`; an existing file is kept as it is. */
export function scaffold(dir: string, version = ownVersion()): Scaffolded {
  const declared = projectDeclaresUs(dir);
  const out: Scaffolded = { written: [], kept: [], declared };
  for (const f of FILES) {
    const text = fs
      .readFileSync(dataPath('init', f.template), 'utf8')
      .replaceAll('{{VERSION}}', version)
      .replace('{{INSTALL}}', installStep(declared, version));
    const target = path.join(dir, f.to);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    try {
      createFileAtomic(target, text);
      out.written.push(f.to);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST')
        throw new UsageError(`${target}: cannot write it (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
      out.kept.push(f.to);
    }
  }
  return out;
}

export function registerInit(program: Command): void {
  program
    .command('init')
    .description(
      'add loopbench to your repository: a starter budgets file for your prompt, a GitHub Actions workflow, an agent wrapper for --agent-cmd (never overwrites a file)',
    )
    .option('--dir <path>', 'the repository to scaffold', '.')
    .action((o: { dir: string }) => {
      const dir = path.resolve(o.dir);
      if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory())
        throw new UsageError(`--dir ${o.dir}: not a directory`);
      const s = scaffold(dir);
      for (const f of s.written) console.log(`wrote  ${f}`);
      for (const f of s.kept) console.log(`kept   ${f} (it exists; not overwritten)`);
      console.log('\nNext:');
      console.log(
        '  1. put your prompt in loopbench/prompt.md, and pick the scenario and budgets in loopbench/budgets.yaml',
      );
      console.log('  2. npx bench check loopbench/budgets.yaml            # the gate, on the free simulated model');
      console.log(
        '  3. npx bench run --agent-cmd "node loopbench/agent.mjs" --steps 12   # your own agent, metered (edit runAgent first)',
      );
      if (!s.declared)
        console.log(
          `  4. commit .github/workflows/loopbench.yml; it installs ${PACKAGE_NAME}@${ownVersion()} (or add it to package.json: npm i -D -E ${PACKAGE_NAME}@${ownVersion()}, then run bench init in a fresh checkout to get a workflow that uses npm ci)`,
        );
      else
        console.log(
          `  4. commit .github/workflows/loopbench.yml; its npm ci installs ${PACKAGE_NAME} from your package.json`,
        );
      console.log(
        "On model: sim the gate sees a prompt's length, not its meaning: see the comment at the top of loopbench/budgets.yaml for the real-model check.",
      );
    });
}
