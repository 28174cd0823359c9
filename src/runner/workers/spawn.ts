// Starting a worker thread on one of the bundle's own entries (scripts/build.mjs), or, under tsx or
// vitest where this file is TypeScript, on the entry's source with the tsx loader registered first.
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** `bundled`: the entry's file name in dist/ (next to the chunk this code is in); `source`: its TypeScript file. */
export function spawnEntry(bundled: string, source: URL, options: WorkerOptions): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL(`./${bundled}`, import.meta.url), options);
  return new Worker(tsxBoot(source), { ...options, eval: true });
}

/** A worker's eval code that runs `prelude` (script code), registers the tsx loader, then imports the TypeScript entry `source`. */
export function tsxBoot(source: URL, prelude = ''): string {
  const tsxApi = path.join(
    path.dirname(createRequire(import.meta.url).resolve('tsx/package.json')),
    'dist/esm/api/index.mjs',
  );
  return `${prelude}\nimport(${JSON.stringify(`file://${tsxApi}`)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(source.href)}); })`;
}
