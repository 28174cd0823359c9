// `npm run test:package`: loopbench as a user meets it. Packs the tarball (`npm pack`, which builds
// dist/ afresh), installs it offline into a new project in a temporary directory that is not this
// repository, and runs there what the README tells a new user to run: `npx bench --steps 12,30`,
// `npx bench init` (twice: the second must keep every file), `npx bench check` on what init wrote,
// and the agent wrapper init wrote under `bench run --agent-cmd`. .ci/run runs it after the tests.
//
// Offline: the new project gets a package-lock.json made from this repository's own (the exact
// versions the tarball depends on, every one already in npm's cache after `npm ci`) plus the
// tarball itself, so `npm ci --offline` installs without asking the registry anything.
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8'));
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-package-'));
const project = path.join(work, 'user-project');
let failures = 0;

function step(name, fn) {
  const t = Date.now();
  try {
    fn();
    console.log(`ok    ${name} (${((Date.now() - t) / 1000).toFixed(1)} s)`);
  } catch (e) {
    failures++;
    console.log(`FAIL  ${name}: ${e.message}`);
  }
}

function run(cmd, args, o = {}) {
  const r = spawnSync(cmd, args, {
    cwd: project,
    encoding: 'utf8',
    env: { ...process.env, FORCE_COLOR: '0', npm_config_update_notifier: 'false' },
    ...o,
  });
  if (r.status !== (o.expect ?? 0))
    throw new Error(
      `${cmd} ${args.join(' ')} exited ${r.status}${r.signal ? ` (${r.signal})` : ''}\n${r.stdout}\n${r.stderr}`,
    );
  return r.stdout;
}

const must = (ok, what) => {
  if (!ok) throw new Error(what);
};

let tarball = '';
step('npm pack', () => {
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', work], {
    cwd: repo,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [info] = JSON.parse(out);
  tarball = path.join(work, info.filename);
  const files = info.files.map((f) => f.path);
  for (const f of [
    'bin/bench.js',
    'dist/main.js',
    'dist/sweep-worker.js',
    'data/pricing.yaml',
    'data/init/budgets.yaml',
    'scenarios/tiny-agent-sum-of-squares.yaml',
    'README.md',
    'docs/ci-gate.md',
  ])
    must(files.includes(f), `the tarball lacks ${f}`);
  const stray = files.filter((f) => /^(src|test|results|scripts|bench|\.ci|node_modules)\//.test(f));
  must(stray.length === 0, `the tarball holds files a user does not need: ${stray.slice(0, 5).join(', ')}`);
  must(
    files.some((f) => /^dist\/o200k_base-.*\.ranks$/.test(f)),
    'the tarball lacks the packed tokenizer table',
  );
});

step('install the tarball offline into a new project', () => {
  const lock = JSON.parse(fs.readFileSync(path.join(repo, 'package-lock.json'), 'utf8'));
  const spec = `file:../${path.basename(tarball)}`;
  const integrity = `sha512-${crypto.createHash('sha512').update(fs.readFileSync(tarball)).digest('base64')}`;
  const manifest = { name: 'user-project', version: '1.0.0', private: true, devDependencies: { [pkg.name]: spec } };
  const packages = {
    '': { name: manifest.name, version: manifest.version, devDependencies: manifest.devDependencies },
    [`node_modules/${pkg.name}`]: {
      version: pkg.version,
      resolved: spec,
      integrity,
      dev: true,
      license: pkg.license,
      dependencies: pkg.dependencies,
      bin: pkg.bin,
      engines: pkg.engines,
    },
  };
  // loopbench's runtime tree as npm resolved it here: every package that is not only a devDependency.
  for (const [where, entry] of Object.entries(lock.packages))
    if (where !== '' && !entry.dev) packages[where] = { ...entry, dev: true };
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify(manifest, null, 2));
  fs.writeFileSync(
    path.join(project, 'package-lock.json'),
    JSON.stringify(
      { name: manifest.name, version: manifest.version, lockfileVersion: 3, requires: true, packages },
      null,
      2,
    ),
  );
  run('npm', ['ci', '--offline', '--no-audit', '--no-fund']);
  must(fs.existsSync(path.join(project, 'node_modules', '.bin', 'bench')), 'node_modules/.bin/bench is missing');
});

step('npx bench --version', () => {
  must(run('npx', ['bench', '--version']).trim() === pkg.version, `not ${pkg.version}`);
});

step('npx bench --steps 12,30 (the quick start, results in the project)', () => {
  const out = run('npx', ['bench', '--steps', '12,30']);
  // The README's quick-start output: a recommendation where the scenario checks its answer, the ×k → ×r lead where it does not.
  must(
    /tiny-agent-sum-of-squares: recommended MAX_STEPS 12/.test(out),
    'no recommendation for tiny-agent-sum-of-squares in the output',
  );
  must(
    /seed-calibrated: MAX_STEPS 12 → 30: steps taken ×2\.5 .* No MAX_STEPS is recommended/.test(out),
    'no seed-calibrated lead line (steps ×k → tokens ×r, nothing recommended) in the output',
  );
  must(/seed-calibrated steps=30\s+10\s/.test(out), 'no seed-calibrated steps=30 row of 10 runs');
  const results = fs.readdirSync(path.join(project, 'results'));
  must(
    results.length === 1 && fs.existsSync(path.join(project, 'results', results[0], 'report.html')),
    'results/<time>/report.html was not written in the project',
  );
});

step('npx bench init writes the scaffold; a second init keeps every file', () => {
  const first = run('npx', ['bench', 'init']);
  for (const f of [
    'loopbench/budgets.yaml',
    'loopbench/prompt.md',
    'loopbench/agent.mjs',
    '.github/workflows/loopbench.yml',
  ]) {
    must(fs.existsSync(path.join(project, f)), `${f} was not written`);
    must(first.includes(`wrote  ${f}`), `init did not say it wrote ${f}`);
  }
  const workflow = fs.readFileSync(path.join(project, '.github/workflows/loopbench.yml'), 'utf8');
  must(
    workflow.includes('npm ci') && workflow.includes('npx bench check loopbench/budgets.yaml'),
    'the workflow does not install from package.json and run the check',
  );
  must(!/examples\/budgets\.yaml/.test(workflow), "the workflow names loopbench's own examples");
  fs.appendFileSync(path.join(project, 'loopbench/prompt.md'), 'Edited by the user.\n');
  const second = run('npx', ['bench', 'init']);
  must((second.match(/^kept /gm) ?? []).length === 4, 'a second init did not keep all four files');
  must(
    fs.readFileSync(path.join(project, 'loopbench/prompt.md'), 'utf8').endsWith('Edited by the user.\n'),
    'init overwrote the edited prompt',
  );
});

step('npx bench check loopbench/budgets.yaml (the scaffold, on the simulated model)', () => {
  const out = run('npx', ['bench', 'check', 'loopbench/budgets.yaml', '-o', 'results/check']);
  must(/bench check: all \d+ budgets hold/.test(out), 'the scaffold does not pass its own budgets');
  must(fs.existsSync(path.join(project, 'results/check/junit.xml')), 'junit.xml was not written');
});

step('npx bench run --agent-cmd "node loopbench/agent.mjs" (the wrapper init wrote)', () => {
  run('npx', [
    'bench',
    'run',
    '--agent-cmd',
    'node loopbench/agent.mjs',
    '-s',
    'tiny-agent-sum-of-squares',
    '--steps',
    '12',
    '-n',
    '2',
    '-o',
    'results/agent',
    '-q',
  ]);
  const runs = fs
    .readFileSync(path.join(project, 'results/agent/runs.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  must(
    runs.length === 2 && runs.every((r) => r.agent === 'external' && r.stop_reason === 'done' && r.success === true),
    `runs: ${runs.map((r) => `${r.stop_reason}/${r.success}`).join(', ')}`,
  );
});

if (failures === 0) fs.rmSync(work, { recursive: true, force: true });
else console.log(`(left for a look: ${work})`);
console.log(failures === 0 ? 'package test: all passed' : `package test: ${failures} failed`);
process.exit(failures === 0 ? 0 : 1);
