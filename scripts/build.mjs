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
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist');
/** Chunks of earlier builds are kept this long: a sweep started before a rebuild still loads its report chunk at the end. */
const KEEP_OLD_CHUNKS_MS = 24 * 3600 * 1000;

/** `clean`: start from an empty dist/ (npm pack: the tarball holds this build's files and no earlier chunk). */
export async function buildBench({ clean = false } = {}) {
  if (clean) fs.rmSync(outdir, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: root,
    // sweep-worker, count-worker: worker threads' scripts (worker-pool.ts and serve/offthread-count.ts load them
    // by these names); rank-table: packs the tokenizer's table at build time (writeRanks); rss-probe,
    // perf-sweep: bench perf's child processes (perf/child.ts); perf-floor: the stub upstream and the
    // pass-through proxy the gateway rows measure against (perf/floor-servers.ts).
    entryPoints: {
      main: 'src/cli/main.ts',
      'rss-probe': 'src/perf/rss-probe.ts',
      'perf-sweep': 'src/perf/sweep-child.ts',
      'perf-floor': 'src/perf/floor-servers.ts',
      'sweep-worker': 'src/runner/workers/worker-entry.ts',
      'rank-table': 'src/meter/rank-table.ts',
      'count-worker': 'src/serve/count-worker.ts',
    },
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
    if (!current.has(file) && Date.now() - fs.statSync(file).mtimeMs > KEEP_OLD_CHUNKS_MS)
      fs.rmSync(file, { force: true });
  }
}

/**
 * gpt-tokenizer's o200k_base ranks as the packed table src/meter/tokens.ts loads into shared memory
 * (one copy for every worker thread), packed by the bundle's own rank-table.js. Written once per
 * package version, from the package itself, so the table is the package's to the entry.
 */
async function writeRanks() {
  const require = createRequire(import.meta.url);
  const file = path.join(outdir, `o200k_base-${require('gpt-tokenizer/package.json').version}.ranks`);
  const { packRanks, unpack } = await import(pathToFileURL(path.join(outdir, 'rank-table.js')).href);
  if (!readable(file, unpack)) {
    const { default: ranks } = await import('gpt-tokenizer/bpeRanks/o200k_base');
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, packRanks(ranks));
    fs.renameSync(tmp, file);
  }
  return file;
}

/** Whether a table file exists in the format this build's rank-table.js reads (an older build's is packed again). */
function readable(file, unpack) {
  try {
    const bytes = fs.readFileSync(file);
    unpack(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    return true;
  } catch {
    return false;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  await buildBench({ clean: process.argv.includes('--clean') });
