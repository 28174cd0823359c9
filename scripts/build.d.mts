/** Bundles src/ into dist/ (see build.mjs). */
export function buildBench(): Promise<void>;
