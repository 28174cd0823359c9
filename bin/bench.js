#!/usr/bin/env node
// Runs the bundled CLI (dist/, built from src/ by scripts/build.mjs on npm ci and before npm run bench).
import fs from 'node:fs';

const main = new URL('../dist/main.js', import.meta.url);
if (!fs.existsSync(main)) {
  console.error('bench: dist/main.js is missing: run `npm ci` (or `npm run build`) in the loopbench checkout first');
  process.exit(2);
}
await import(main.href);
