// Bundles the CLI from src/ into dist/ (esbuild, well under a second). `bench` runs the bundle on
// plain Node: running the TypeScript through tsx kept every transformed module and its source map
// in memory (about 120 MB more peak RSS on a 10,000-run sweep) and started slower.
// Every file lands flat in dist/, one level below the package root like src/paths.ts, so ROOT
// resolves the same way from either. Runs on `npm ci` (prepare), before `npm run bench`, and
// before the tests (test/global-setup.ts), so the bundle is never older than the sources.
import { build } from 'esbuild';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist');
/** Chunks of earlier builds are kept this long: a sweep started before a rebuild still loads its report chunk at the end. */
const KEEP_OLD_CHUNKS_MS = 24 * 3600 * 1000;

export async function buildBench() {
  const result = await build({
    absWorkingDir: root,
    // sweep-worker: the worker threads' script (src/runner/workers/worker-pool.ts loads it by this name).
    entryPoints: { main: 'src/cli/main.ts', 'rss-probe': 'src/perf/rss-probe.ts', 'sweep-worker': 'src/runner/workers/worker-entry.ts' },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    entryNames: '[name]',
    chunkNames: '[name]-[hash]',
    metafile: true,
    logLevel: 'warning',
  });
  const current = new Set(Object.keys(result.metafile.outputs).map((f) => path.resolve(root, f)));
  current.add(await writeRanks());
  for (const name of fs.readdirSync(outdir)) {
    const file = path.join(outdir, name);
    if (!current.has(file) && Date.now() - fs.statSync(file).mtimeMs > KEEP_OLD_CHUNKS_MS) fs.rmSync(file, { force: true });
  }
}

/**
 * gpt-tokenizer's o200k_base ranks as JSON (src/meter/tokens.ts loads them: JSON.parse needs far
 * less memory than compiling the package's array literal, in every worker thread). Written once
 * per package version, from the package itself, so the table is the package's to the entry.
 */
async function writeRanks() {
  const require = createRequire(import.meta.url);
  const file = path.join(outdir, `o200k_base-${require('gpt-tokenizer/package.json').version}.json`);
  if (!fs.existsSync(file)) {
    const { default: ranks } = await import('gpt-tokenizer/bpeRanks/o200k_base');
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(ranks));
    fs.renameSync(tmp, file);
  }
  return file;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await buildBench();
